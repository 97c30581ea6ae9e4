/**
 * A LIFO stack of cleanup steps. Every resource a test starts (temp home, gateway process, browser)
 * registers its teardown here *as soon as it exists*, so a failure half-way through setup still
 * tears down what was already started. Each step runs even if an earlier one threw; the first error
 * is rethrown after all steps ran.
 */
export class Cleanup {
  private readonly steps: Array<{ name: string; run: () => Promise<void> | void }> = [];

  add(name: string, run: () => Promise<void> | void): void {
    this.steps.push({ name, run });
  }

  async run(): Promise<void> {
    let first: unknown = null;
    while (this.steps.length > 0) {
      const step = this.steps.pop()!;
      try {
        await step.run();
      } catch (error) {
        first ??= new Error(`cleanup step "${step.name}" failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (first) throw first;
  }
}
