import { endpoint, Endpoint, ok } from '../../lib/http/endpoint';

export interface HeldEndpoint {
  /** GET test/held/: stays in flight until release(), so calls overlap for sure. */
  endpoint: Endpoint;
  /** Resolves when the next call is inside the handler; ask before sending that call. */
  nextEntry(): Promise<void>;
  /** Lets the call in the handler answer 200. */
  release(): void;
}

/** A test endpoint that holds its call until the test lets it go. */
export function heldEndpoint(): HeldEndpoint {
  let entered: () => void = () => undefined;
  let release: () => void = () => undefined;
  return {
    endpoint: endpoint({
      method: 'GET',
      path: 'test/held/',
      summary: 'answers when the test says so',
      response: [],
      handle: async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
          entered();
        });
        return ok({});
      },
    }),
    nextEntry: () =>
      new Promise<void>((resolve) => {
        entered = resolve;
      }),
    release: () => release(),
  };
}
