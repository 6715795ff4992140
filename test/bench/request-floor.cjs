// The floor of `gsh servers list --limit 5`: the same GET against the same sandbox with node:http
// alone, its rows printed tab-separated, and nothing else (no flags, no retries, no table).
const { get } = require('node:http');
const { GSH_BASE_URL: base, GSH_API_KEY: key } = process.env;
get(`${base}/servers?limit=5`, { headers: { accept: 'application/json', authorization: `Bearer ${key}` } }, (res) => {
  let text = '';
  res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => {
    for (const s of JSON.parse(text).data) process.stdout.write(`${[s.id, s.name, s.application, s.plan, s.region, s.created_at].join('\t')}\n`);
  });
});
