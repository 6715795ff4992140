// The run's environment is a user's machine (README "Tests"): without NODE_EXTRA_CA_CERTS, which
// a build or CI machine may set and a user's has not. Every test worker and every process a test
// starts inherits it from here; Node reads that file of certificates when it starts, about twice
// the time of `node -e 0` on each of the suite's hundreds of subprocesses. The tests that trust a
// CA of their own give it to their process themselves (test/helpers/test-tls.ts).
const NOT_A_USERS = ['NODE_EXTRA_CA_CERTS'] as const;

export default function setup(): () => void {
  const saved = NOT_A_USERS.map((name) => [name, process.env[name]] as const);
  for (const name of NOT_A_USERS) delete process.env[name];
  return () => {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  };
}
