import type { Feature } from '../feature.js';

// `raw`: documents and text (llms.txt, the docs redirect, exports) are printed as they came: the
// exact bytes when piped, JSON indented on a terminal (run.ts printDocument).

export const raw: Feature = {
  name: 'raw',
  spec: (d, spec) => (d.leaf.op.raw ? { ...spec, headers: { accept: '*/*' }, binary: true } : spec),
  document({ p, out }, res) {
    if (!p.leaf.op.raw) return false;
    const location = res.status >= 300 && res.status < 400 ? res.headers.location : undefined;
    out.document(location ?? res.body, res.headers['content-type']);
    return true;
  },
};
