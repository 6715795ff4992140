// Preloaded (--require) into a run whose peak memory the benches measure: writes
// process.resourceUsage().maxRSS (KiB) at exit to GSH_BENCH_RSS_FILE. CommonJS, so measuring
// does not itself load Node's ES module loader, which gsh never loads.
process.on('exit', () => require('node:fs').writeFileSync(process.env.GSH_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));
