/**
 * The home screen's import status (lib/homeStatus.ts) is a status of the moment: it clears on any
 * navigation (also when coming back home), can be dismissed, and an import that finishes after the
 * person moved on does not bring it back.
 */
import { describe, expect, test } from 'vitest';
import { homeStatusReducer, initialHomeStatus, type HomeStatus, type HomeStatusEvent } from '../src/lib/homeStatus';

/** Runs events from the home route; `finished@start` = the import's result, started at the first event. */
function run(events: Array<HomeStatusEvent | 'finished@start'>, text = 'Imported 3 projects and 38 messages'): HomeStatus {
  let state = initialHomeStatus('#/');
  const started = state.navigation;
  for (const e of events) state = homeStatusReducer(state, e === 'finished@start' ? { type: 'finished', text, navigation: started } : e);
  return state;
}

const importing: HomeStatusEvent = { type: 'show', text: 'Importing the demo history…' };
const toSession: HomeStatusEvent = { type: 'navigate', routeKey: '#/s/s1' };
const home: HomeStatusEvent = { type: 'navigate', routeKey: '#/' };

describe('homeStatusReducer', () => {
  test.each([
    ['import finishes on the home screen → shown', [importing, 'finished@start'] as const, 'Imported 3 projects and 38 messages'],
    ['dismissed → gone', [importing, 'finished@start', { type: 'dismiss' }] as const, null],
    ['navigating away clears it', [importing, 'finished@start', toSession] as const, null],
    ['away and back home: still gone', [importing, 'finished@start', toSession, home] as const, null],
    ['a re-render with the same route keeps it', [importing, 'finished@start', home] as const, 'Imported 3 projects and 38 messages'],
    ['finished after the person moved on and came back: not shown', [importing, toSession, home, 'finished@start'] as const, null],
    ['a failed import clears the progress line', [importing, { type: 'finished', text: null, navigation: 0 }] as const, null],
  ])('%s', (_name, events, text) => {
    expect(run([...events]).text).toBe(text);
  });
});
