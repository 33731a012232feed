// serve.mjs holds what check.mjs and shot.mjs share: the page that runs one script
// with three.js from the local package, the route that answers its requests from
// memory (nothing leaves the machine), and the Chromium to run it in.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const three = path.join(here, 'node_modules', 'three');

// origin is the address the page is served under; no request reaches a network.
export const origin = 'http://rigkit.invalid';

const types = { '.js': 'text/javascript', '.html': 'text/html', '.glb': 'model/gltf-binary' };

// route returns a Playwright route handler serving index.html (which loads
// script, a file beside this one), the .glb at file as /model.glb and the three
// package; every other request gets 404.
export function route(file, script) {
  const page = `<!doctype html><html><head><meta charset="utf-8">
<script type="importmap">{"imports": {"three": "/three/build/three.module.js",
  "three/addons/": "/three/examples/jsm/"}}</script>
<script type="module" src="/${script}"></script></head><body></body></html>`;
  return async (r) => {
    const url = new URL(r.request().url());
    let body = null;
    let p = url.pathname;
    if (p === '/' || p === '/index.html') body = page, p = '/index.html';
    else if (p === '/model.glb') body = fs.readFileSync(file);
    else if (p === `/${script}`) body = fs.readFileSync(path.join(here, script));
    else if (p.startsWith('/three/')) {
      const f = path.normalize(path.join(three, p.slice('/three/'.length)));
      if (f.startsWith(three + path.sep) && fs.existsSync(f)) body = fs.readFileSync(f);
    }
    if (body === null) return r.fulfill({ status: 404, body: 'not found' });
    return r.fulfill({ status: 200, contentType: types[path.extname(p)] || 'application/octet-stream', body });
  };
}

// findChromium returns the Chromium executable (Debian's, or $RIGKIT_CHROMIUM), or
// null after saying on stderr, under the tool's name, how to get one.
export function findChromium(tool) {
  const exe = process.env.RIGKIT_CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(exe)) {
    console.error(`${tool}: no Chromium at ${exe} (apt-get install chromium, or set RIGKIT_CHROMIUM)`);
    return null;
  }
  return exe;
}
