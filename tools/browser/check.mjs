#!/usr/bin/env node
// check.mjs loads a .glb in headless Chromium (Debian's /usr/bin/chromium, or
// $RIGKIT_CHROMIUM) with three.js's GLTFLoader and prints one JSON report: the
// scene's bounding box (Box3.setFromObject, precise), mesh and bone counts and, per
// animation clip, how far AnimationMixer moves the vertices of every mesh (skinned
// ones through their bones; up to 3,000 per mesh, at 8 times) from the bind pose
// and between samples, whether every position is finite, whether the clip
// moves anything, whether it explodes (a vertex farther than 3 bounding-box
// diagonals from its bind position), and whether it keeps the character upright
// and sized (posed height along +Y within 0.6–1.4× the rest height, no extent over
// twice the largest rest extent, as rigkit's animation.CheckPosture; and the rest's
// lowest and highest 5% of vertices staying in the posed lowest and highest
// quarter, so that lying down or standing on the head fails).
//
// usage: node tools/browser/check.mjs FILE.glb
// exit status: 0 the file loads and no clip is non-finite, exploded, still or
// out of posture;
// 1 it loads but a clip fails those checks (or three.js cannot load it);
// 2 bad usage; 3 no Chromium to run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const three = path.join(here, 'node_modules', 'three');
const origin = 'http://rigkit.invalid';

const page = `<!doctype html><html><head><meta charset="utf-8">
<script type="importmap">{"imports": {"three": "/three/build/three.module.js",
  "three/addons/": "/three/examples/jsm/"}}</script>
<script type="module" src="/page.js"></script></head><body></body></html>`;

const types = { '.js': 'text/javascript', '.html': 'text/html', '.glb': 'model/gltf-binary' };

// serve answers the page's requests from memory and the three package; nothing
// leaves the machine.
function serve(file) {
  return async (route) => {
    const url = new URL(route.request().url());
    let body = null;
    let p = url.pathname;
    if (p === '/' || p === '/index.html') body = page, p = '/index.html';
    else if (p === '/model.glb') body = fs.readFileSync(file);
    else if (p === '/page.js') body = fs.readFileSync(path.join(here, 'page.js'));
    else if (p.startsWith('/three/')) {
      const f = path.normalize(path.join(three, p.slice('/three/'.length)));
      if (f.startsWith(three + path.sep) && fs.existsSync(f)) body = fs.readFileSync(f);
    }
    if (body === null) return route.fulfill({ status: 404, body: 'not found' });
    return route.fulfill({ status: 200, contentType: types[path.extname(p)] || 'application/octet-stream', body });
  };
}

async function main() {
  const file = process.argv[2];
  if (!file || process.argv.length > 3) {
    console.error('usage: node tools/browser/check.mjs FILE.glb');
    return 2;
  }
  if (!fs.existsSync(file)) {
    console.error(`check: ${file}: no such file`);
    return 2;
  }
  const exe = process.env.RIGKIT_CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(exe)) {
    console.error(`check: no Chromium at ${exe} (apt-get install chromium, or set RIGKIT_CHROMIUM)`);
    return 3;
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rigkit-chromium-'));
  let ctx;
  try {
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: exe,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    const tab = ctx.pages()[0] || (await ctx.newPage());
    const logs = [];
    tab.on('pageerror', (e) => logs.push(String(e)));
    await tab.route(`${origin}/**`, serve(file));
    await tab.goto(`${origin}/index.html`);
    await tab.waitForFunction(() => window.rigkitCheck !== undefined, null, { timeout: 60000 });
    const res = await tab.evaluate(() => window.rigkitCheck);
    if (!res.ok) {
      console.log(JSON.stringify({ file, ok: false, error: res.error, page_errors: logs }, null, 1));
      return 1;
    }
    const r = res.report;
    const bad = r.clips.filter((c) => !c.finite || c.exploded || !c.moved || !c.upright).map((c) => c.name);
    const ok = r.rest_finite && bad.length === 0;
    console.log(JSON.stringify({ file, ok, failed_clips: bad, ...r }, null, 1));
    return ok ? 0 : 1;
  } finally {
    if (ctx) await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code), (e) => {
  console.error(`check: ${e && e.message ? e.message : e}`);
  process.exit(e && /Executable|browserType\.launch/.test(String(e.message)) ? 3 : 1);
});
