// Whether bytes would mess up a terminal (as curl warns): a NUL byte or text that is not UTF-8 in
// the first 8 KiB, whatever the content type says (servers label archives text/plain too).

const SNIFF = 8192;

export function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, SNIFF);
  if (head.includes(0)) return true;
  try {
    // A multi-byte character cut at the sniff boundary is still text.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: head.length < bytes.length });
    return false;
  } catch {
    return true;
  }
}
