// Types for the undici modules we import by path: the package index costs ~2x node's startup
// (every dispatcher, fetch, cache, mocks), while the agent and request API alone cost ~10 ms.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentCtor: typeof Agent;
  export default AgentCtor;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  function request(this: Dispatcher, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
