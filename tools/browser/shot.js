// shot.js runs inside headless Chromium: it loads /model.glb with three.js, poses it
// with AnimationMixer at the clip and time of the page's query (?clip=NAME&t=SEC),
// frames the rest pose's bounding box from the front-left and renders one frame.
// shot.mjs serves it and saves the canvas.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

async function run() {
  const q = new URLSearchParams(location.search);
  const [w, h] = (q.get('size') || '320x360').split('x').map(Number);
  const bytes = await (await fetch('/model.glb')).arrayBuffer();
  const gltf = await new GLTFLoader().parseAsync(bytes, '/');
  const scene = gltf.scene;
  scene.updateMatrixWorld(true);
  const box = new THREE.Box3().setFromObject(scene, true);
  const clip = gltf.animations.find((c) => c.name === q.get('clip'));
  if (!clip) throw new Error(`no clip ${q.get('clip')} (have ${gltf.animations.map((c) => c.name).join(', ')})`);
  const mixer = new THREE.AnimationMixer(scene);
  mixer.clipAction(clip).play();
  mixer.setTime(Number(q.get('t') || 0));
  scene.updateMatrixWorld(true);
  const posed = new THREE.Box3().setFromObject(scene, true);
  box.union(posed);
  const centre = box.getCenter(new THREE.Vector3());
  const size = box.getSize(new THREE.Vector3()).length();
  const camera = new THREE.PerspectiveCamera(35, w / h, size / 100, size * 10);
  const yaw = (Number(q.get('yaw') || 30) * Math.PI) / 180;
  camera.position.set(centre.x + 1.6 * size * Math.sin(yaw), centre.y + 0.2 * size, centre.z + 1.6 * size * Math.cos(yaw));
  camera.lookAt(centre);
  const world = new THREE.Scene();
  world.background = new THREE.Color(0xf0f0f0);
  world.add(new THREE.HemisphereLight(0xffffff, 0x666666, 2.0));
  const sun = new THREE.DirectionalLight(0xffffff, 1.5);
  sun.position.set(1, 2, 3);
  world.add(sun);
  const grid = new THREE.GridHelper(size * 2, 20, 0x999999, 0xcccccc);
  grid.position.y = box.min.y;
  world.add(grid, scene);
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setSize(w, h);
  document.body.style.margin = '0';
  document.body.appendChild(renderer.domElement);
  renderer.render(world, camera);
  return { clip: clip.name, t: Number(q.get('t') || 0), bbox: { min: posed.min.toArray(), max: posed.max.toArray() } };
}

window.rigkitShot = run().then(
  (r) => ({ ok: true, report: r }),
  (e) => ({ ok: false, error: String(e && e.stack ? e.stack : e) }),
);
