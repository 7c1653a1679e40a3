// A package folder served over HTTP on 127.0.0.1, for the public loader: it fetches only absolute URLs, so a
// package on disk is given to getKernel as `baseUrl` (the folder's root; the loader adds build/webgpu/...).
// Files only, read whole; nothing outside the folder; any other request is 404.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export async function servePackage(root) {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      rel = null;
    }
    const file = rel === null ? null : path.resolve(base, '.' + rel);
    const inside = file !== null && file.startsWith(base + path.sep);
    if (req.method !== 'GET' || !inside || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(fs.readFileSync(file));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
