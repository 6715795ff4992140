// A small multipart/form-data reader for the node's upload URL (03 "File transfers": "send the
// file there by POST as a multipart form"). Only what uploads need: each part's name, filename
// and bytes. Malformed input yields an error message, never an exception.

export interface Part {
  name: string;
  filename?: string;
  data: Buffer;
}

export function boundaryOf(contentType: string | undefined): string | undefined {
  const m = /^multipart\/form-data\s*;.*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2]) : undefined;
}

export function parseMultipart(body: Buffer, boundary: string): Part[] | string {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) return 'no multipart boundary found in the body';
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString() === '--') return parts;
    if (body.subarray(pos, pos + 2).toString() !== '\r\n') return 'malformed multipart delimiter line';
    pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) return 'malformed multipart part headers';
    const headers = body.subarray(pos, headerEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) return 'multipart body is not terminated';
    const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) return 'a multipart part has no name';
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    parts.push({ name, ...(filename !== undefined ? { filename } : {}), data: body.subarray(headerEnd + 4, next) });
    pos = next + 2;
  }
}
