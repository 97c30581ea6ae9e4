/**
 * Waiting for the end of a long-running command (`serve`, `mcp`): resolves on the first SIGINT or
 * SIGTERM (or another stop condition the caller adds) with the signal's name, so the command can
 * shut down in order — stop accepting, finish in-flight writes, close the database — before the
 * process exits. A second signal during that shutdown exits at once (exit code 130), the usual
 * "press Ctrl-C again to force" behaviour.
 */
export type StopReason = 'SIGINT' | 'SIGTERM' | 'stdin-closed';

export function waitForStop(extra?: (stop: (reason: StopReason) => void) => void): Promise<StopReason> {
  return new Promise((resolveStop) => {
    let stopping = false;
    const stop = (reason: StopReason): void => {
      if (stopping) return;
      stopping = true;
      resolveStop(reason);
    };
    const onSignal = (signal: 'SIGINT' | 'SIGTERM') => (): void => {
      if (stopping) {
        process.stderr.write(`recall: second ${signal}, exiting without waiting.\n`);
        process.exit(130);
      }
      stop(signal);
    };
    process.on('SIGINT', onSignal('SIGINT'));
    process.on('SIGTERM', onSignal('SIGTERM'));
    extra?.(stop);
  });
}
