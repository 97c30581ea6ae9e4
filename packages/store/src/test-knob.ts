/**
 * A module's test knob: an override of one of its tuning rules that a test sets and then restores
 * (null: the module's own rule). Knobs change how an answer is found, never the answer.
 */

/** One override, read by its module and set by tests (see testKnob). */
export interface TestKnob<T> {
  /** The current override, or null when the module's own rule applies. */
  get(): T | null;
  /** Sets the override (null: back to the module's rule) and returns the previous one, for the test to restore. */
  set(value: T | null): T | null;
}

/** A new knob, unset (the module's own rule applies until a test sets it). */
export function testKnob<T>(): TestKnob<T> {
  let current: T | null = null;
  return {
    get: () => current,
    set(value) {
      const previous = current;
      current = value;
      return previous;
    },
  };
}
