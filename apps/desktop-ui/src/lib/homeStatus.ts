/**
 * The home screen's status line ("Importing the demo history…", then "Imported 3 projects and …"):
 * a status of the moment, not a fixture. It clears when the person navigates anywhere (also back to
 * home later), can be dismissed, and an import that finishes after the person moved on does not
 * bring it back. A pure reducer so the rules are testable without a browser.
 */
export interface HomeStatus {
  /** The line shown on the home screen; null = none. */
  text: string | null;
  /** The route the person is on (its hash). */
  routeKey: string;
  /** Counts navigations: a result started before the last one is not shown. */
  navigation: number;
}

export type HomeStatusEvent =
  | { type: 'navigate'; routeKey: string }
  | { type: 'show'; text: string }
  /** An import finished; `navigation` is the state's counter when it started. */
  | { type: 'finished'; text: string | null; navigation: number }
  | { type: 'dismiss' };

export function initialHomeStatus(routeKey: string): HomeStatus {
  return { text: null, routeKey, navigation: 0 };
}

export function homeStatusReducer(state: HomeStatus, event: HomeStatusEvent): HomeStatus {
  switch (event.type) {
    case 'navigate':
      return event.routeKey === state.routeKey ? state : { text: null, routeKey: event.routeKey, navigation: state.navigation + 1 };
    case 'show':
      return { ...state, text: event.text };
    case 'finished':
      return event.navigation === state.navigation ? { ...state, text: event.text } : state;
    case 'dismiss':
      return state.text === null ? state : { ...state, text: null };
  }
}
