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

function measureClip(scene, meshes, clip, rest, diagonal) {
  const mixer = new THREE.AnimationMixer(scene);
  const action = mixer.clipAction(clip);
  action.play();
  const times = [];
  let maxDisp = 0, meanDisp = 0, maxStep = 0, finite = true, prev = null;
  for (let k = 0; k < SAMPLES; k++) {
    const t = (clip.duration * k) / SAMPLES;
    mixer.setTime(t);
    const p = positions(scene, meshes);
    finite = finite && allFinite(p);
    const d = maxDistance(p, rest);
    maxDisp = Math.max(maxDisp, d.max);
    meanDisp = Math.max(meanDisp, d.mean);
    if (prev) maxStep = Math.max(maxStep, maxDistance(p, prev).max);
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
