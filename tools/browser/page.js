// page.js runs inside headless Chromium: it loads /model.glb with three.js's
// GLTFLoader and measures the scene's bounding box and, for each animation clip,
// how AnimationMixer moves the (skinned) vertices over time. check.mjs serves it.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

const MAX_VERTICES = 3000; // vertices sampled per skinned mesh
const SAMPLES = 8; // times per clip

function allMeshes(root) {
  const out = [];
  root.traverse((o) => { if (o.isMesh && o.geometry && o.geometry.attributes.position) out.push(o); });
  return out;
}

// positions returns world positions of sampled vertices of every mesh: skinned ones
// after their skeletons are updated for the current bone transforms, others moved
// by their node transforms (node animations).
function positions(scene, meshes) {
  scene.updateMatrixWorld(true);
  const out = [];
  const v = new THREE.Vector3();
  for (const m of meshes) {
    if (m.isSkinnedMesh) m.skeleton.update();
    const pos = m.geometry.attributes.position;
    const step = Math.max(1, Math.floor(pos.count / MAX_VERTICES));
    for (let i = 0; i < pos.count; i += step) {
      v.fromBufferAttribute(pos, i);
      if (m.isSkinnedMesh) m.applyBoneTransform(i, v);
      v.applyMatrix4(m.matrixWorld);
      out.push(v.x, v.y, v.z);
    }
  }
  return out;
}

function maxDistance(a, b) {
  let worst = 0, sum = 0;
  for (let i = 0; i < a.length; i += 3) {
    const d = Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]);
    worst = Math.max(worst, d);
    sum += d;
  }
  return { max: worst, mean: a.length ? sum / (a.length / 3) : 0 };
}

const allFinite = (xs) => xs.every(Number.isFinite);

// extents returns the size of flat xyz positions along x, y and z.
function extents(p) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i += 3) {
    for (let a = 0; a < 3; a++) {
      lo[a] = Math.min(lo[a], p[i + a]);
      hi[a] = Math.max(hi[a], p[i + a]);
    }
  }
  return [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
}

// Posture limits (rigkit's animation.CheckPosture): the posed height along +Y, the
// glTF up axis, stays within 0.6–1.4× the rest height and no extent passes twice
// the largest rest extent.
const MIN_UPRIGHT = 0.6, MAX_UPRIGHT = 1.4, MAX_GROWTH = 2;

// ends returns the indices of the lowest and the highest 5% of positions along +Y
// (the soles and the top of the head of a standing character).
function ends(p) {
  const order = [];
  for (let i = 0; i < p.length / 3; i++) order.push(i);
  order.sort((a, b) => p[3 * a + 1] - p[3 * b + 1]);
  const n = Math.max(1, Math.floor(order.length / 20));
  return { low: order.slice(0, n), high: order.slice(order.length - n) };
}

// level is the mean height of positions idx within p's height range, 0 at the
// bottom and 1 at the top.
function level(p, idx) {
  let lo = Infinity, hi = -Infinity, sum = 0;
  for (let i = 1; i < p.length; i += 3) { lo = Math.min(lo, p[i]); hi = Math.max(hi, p[i]); }
  for (const i of idx) sum += p[3 * i + 1];
  return hi > lo ? (sum / idx.length - lo) / (hi - lo) : 0.5;
}

function measureClip(scene, meshes, clip, rest, diagonal) {
  const mixer = new THREE.AnimationMixer(scene);
  const action = mixer.clipAction(clip);
  action.play();
  const times = [];
  let maxDisp = 0, meanDisp = 0, maxStep = 0, finite = true, prev = null;
  const restExt = extents(rest), restLargest = Math.max(...restExt);
  let minHeight = Infinity, maxHeight = 0, maxGrowth = 0;
  // A character lying down or standing on its head keeps its size but not the
  // order of its ends: the soles must stay in the lowest quarter, the top of the
  // head in the highest.
  const restEnds = ends(rest);
  let lowRise = 0, highDrop = 1;
  for (let k = 0; k < SAMPLES; k++) {
    const t = (clip.duration * k) / SAMPLES;
    mixer.setTime(t);
    const p = positions(scene, meshes);
    finite = finite && allFinite(p);
    const d = maxDistance(p, rest);
    maxDisp = Math.max(maxDisp, d.max);
    meanDisp = Math.max(meanDisp, d.mean);
    if (prev) maxStep = Math.max(maxStep, maxDistance(p, prev).max);
    const e = extents(p);
    minHeight = Math.min(minHeight, e[1] / restExt[1]);
    maxHeight = Math.max(maxHeight, e[1] / restExt[1]);
    maxGrowth = Math.max(maxGrowth, Math.max(...e) / restLargest);
    lowRise = Math.max(lowRise, level(p, restEnds.low));
    highDrop = Math.min(highDrop, level(p, restEnds.high));
    prev = p;
    times.push(t);
  }
  action.stop();
  mixer.uncacheRoot(scene);
  return {
    name: clip.name,
    duration: clip.duration,
    tracks: clip.tracks.length,
    times,
    max_displacement: maxDisp,
    mean_displacement: meanDisp,
    max_step_displacement: maxStep,
    finite,
    moved: maxStep > 1e-4 * diagonal,
    exploded: !(maxDisp <= 3 * diagonal),
    min_height_ratio: minHeight,
    max_height_ratio: maxHeight,
    max_growth: maxGrowth,
    lowest_rise: lowRise,
    highest_drop: highDrop,
    upright: minHeight >= MIN_UPRIGHT && maxHeight <= MAX_UPRIGHT && maxGrowth <= MAX_GROWTH &&
      lowRise <= 0.25 && highDrop >= 0.75,
  };
}

async function run() {
  const bytes = await (await fetch('/model.glb')).arrayBuffer();
  const gltf = await new GLTFLoader().parseAsync(bytes, '/');
  const scene = gltf.scene;
  scene.updateMatrixWorld(true);
  const box = new THREE.Box3().setFromObject(scene, true);
  const size = box.getSize(new THREE.Vector3());
  const diagonal = size.length();
  const meshes = allMeshes(scene);
  const skinned = meshes.filter((m) => m.isSkinnedMesh);
  let bones = 0;
  for (const m of skinned) bones = Math.max(bones, m.skeleton.bones.length);
  const rest = positions(scene, meshes);
  const clips = gltf.animations.map((c) => measureClip(scene, meshes, c, rest, diagonal));
  return {
    three: THREE.REVISION,
    bbox: { min: box.min.toArray(), max: box.max.toArray(), size: size.toArray(), diagonal },
    meshes: meshes.length,
    skinned_meshes: skinned.length,
    bones,
    rest_finite: allFinite(rest),
    clips,
  };
}

window.rigkitCheck = run().then(
  (r) => ({ ok: true, report: r }),
  (e) => ({ ok: false, error: String(e && e.stack ? e.stack : e) }),
);
