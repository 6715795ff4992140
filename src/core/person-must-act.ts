import type { ApiError } from './errors.js';
import type { PersonMustActHandler, RequestSpec } from './http.js';
import type { Runtime } from './runtime.js';

// When the API answers that a person must act (approval, ad view, payment), the request core
// asks this handler whether to repeat the identical request. Until the interactive flows exist,
// the error is reported with its action_url and the command exits 7.
export function personMustAct(_rt: Runtime): PersonMustActHandler {
  return async (_err: ApiError, _spec: RequestSpec) => false;
}
