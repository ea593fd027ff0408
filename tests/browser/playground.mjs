// Drives the playground page in headless Chromium and writes what it saw to a JSON report,
// with screenshots, for test_playground_browser.py to check.
//   node playground.mjs URL OUT_DIR [CHROMIUM]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [url, out, executablePath = "/usr/bin/chromium"] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), "playground-chromium-"));
const report = { console: [], pageErrors: [], failedRequests: [], steps: {} };

const context = await chromium.launchPersistentContext(profile, {
  executablePath,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1280, height: 720 },
});
const page = context.pages()[0] || await context.newPage();
page.setDefaultTimeout(90000);     // the machine may be busy
page.on("console", (m) => report.console.push({ type: m.type(), text: m.text() }));
page.on("pageerror", (e) => report.pageErrors.push(String(e)));
page.on("requestfailed", (r) => report.failedRequests.push(r.url()));
// Nothing may leave the served origin.
const origin = new URL(url).origin;
page.on("request", (r) => {
  if (!r.url().startsWith(origin) && !r.url().startsWith("data:")) report.failedRequests.push("outside: " + r.url());
});

const state = (path) => page.evaluate((p) => p.split(".").reduce((o, k) => o[k], window.playground), path);
const settled = () => page.waitForFunction(() => window.playground.pending === 0);
const text = (id) => page.textContent("#" + id);
async function shot(name) {
  const file = join(out, name + ".png");
  await page.screenshot({ path: file });
  return file;
}
// Page position of the centre of cell (x, y) of a cell canvas.
async function cellPoint(canvas, view, x, y) {
  const box = await page.locator("#" + canvas).boundingBox();
  const cell = await state(view + ".cell");
  return [box.x + (x + 0.5) * cell, box.y + (y + 0.5) * cell];
}
async function worldPoint(canvas, view, x, y) {
  const box = await page.locator("#" + canvas).boundingBox();
  const scale = await state(view + ".scale");
  return [box.x + x * scale, box.y + y * scale];
}
async function gridRun(action) {
  const runs = await state("grid.runs");
  await action();
  await page.waitForFunction((n) => window.playground.grid.runs > n && window.playground.pending === 0, runs);
  return { cost: await text("grid-cost"), length: await text("grid-length"),
           expanded: await text("grid-expanded"), result: await state("grid.result") };
}

try {
  await page.goto(url);
  await page.waitForFunction(() => window.playground && window.playground.ready);
  const steps = report.steps;

  // Grid: place start and goal by clicks.
  await page.selectOption("#grid-brush", "start");
  let at = await cellPoint("grid-canvas", "grid", 2, 2);
  let r = await gridRun(() => page.mouse.click(...at));
  await page.selectOption("#grid-brush", "goal");
  at = await cellPoint("grid-canvas", "grid", 40, 29);
  r = await gridRun(() => page.mouse.click(...at));
  steps.placed = { start: await state("grid.start"), goal: await state("grid.goal"),
                   cost: r.cost, length: r.length, found: r.result.found };
  steps.placedShot = await shot("grid-placed");

  // Grid: a drawn wall changes the path.
  await page.selectOption("#grid-brush", "wall");
  const from = await cellPoint("grid-canvas", "grid", 36, 12);
  const to = await cellPoint("grid-canvas", "grid", 36, 31);
  const to2 = await cellPoint("grid-canvas", "grid", 47, 31);
  r = await gridRun(async () => {
    await page.mouse.move(...from);
    await page.mouse.down();
    await page.mouse.move(...to, { steps: 25 });
    await page.mouse.move(...to2, { steps: 15 });
    await page.mouse.up();
  });
  steps.walled = { cost: r.cost, length: r.length, found: r.result.found,
                   walls: await page.evaluate(() => window.playground.grid.cells.filter((c) => c === "#").length) };
  steps.walledShot = await shot("grid-walled");

  // Grid: drag the goal marker.
  const goalAt = await cellPoint("grid-canvas", "grid", 40, 29);
  const newGoal = await cellPoint("grid-canvas", "grid", 45, 3);
  r = await gridRun(async () => {
    await page.mouse.move(...goalAt);
    await page.mouse.down();
    await page.mouse.move(...newGoal, { steps: 10 });
    await page.mouse.up();
  });
  steps.dragged = { goal: await state("grid.goal"), cost: r.cost };

  // Grid: shift-drag draws weights, alt-drag erases.
  const weights = () => page.evaluate(() => window.playground.grid.cells.filter((c) => c === "5").length);
  const brushDrag = (key, a, b) => gridRun(async () => {
    await page.keyboard.down(key);
    await page.mouse.move(...a);
    await page.mouse.down();
    await page.mouse.move(...b, { steps: 12 });
    await page.mouse.up();
    await page.keyboard.up(key);
  });
  const w0 = await weights();
  const wa = await cellPoint("grid-canvas", "grid", 2, 20), wb = await cellPoint("grid-canvas", "grid", 12, 20);
  r = await brushDrag("Shift", wa, wb);
  const w1 = await weights();
  await brushDrag("Alt", wa, wb);
  steps.weights = { before: w0, drawn: w1, erased: await weights(), found: r.result.found };

  // Grid: the methods the library refuses on weighted grids are disabled; on a uniform grid
  // every method in the dropdown runs to a path.
  steps.disabledWeighted = await page.$$eval("#grid-method option", (os) => os.filter((o) => o.disabled).map((o) => o.value));
  await gridRun(() => page.click("#grid-clear"));
  const top = await cellPoint("grid-canvas", "grid", 24, 0);
  const bottom = await cellPoint("grid-canvas", "grid", 24, 26);
  await gridRun(async () => {
    await page.mouse.move(...top);
    await page.mouse.down();
    await page.mouse.move(...bottom, { steps: 30 });
    await page.mouse.up();
  });
  steps.disabledUniform = await page.$$eval("#grid-method option", (os) => os.filter((o) => o.disabled).map((o) => o.value));
  const methods = await page.$$eval("#grid-method option", (os) => os.map((o) => o.value));
  steps.methods = {};
  for (const m of methods) {
    r = await gridRun(() => page.selectOption("#grid-method", m));
    steps.methods[m] = { cost: r.cost, found: r.result.found, method: r.result.method,
                         slices: r.result.slices.length, cost_value: r.result.cost,
                         recorded: r.result.expanded_nodes !== null };
  }

  // Grid: play the expansion of A* slice by slice.
  await gridRun(() => page.selectOption("#grid-method", "astar"));
  await gridRun(() => page.evaluate(() => {
    const el = document.getElementById("grid-slice");
    el.value = "8";
    el.dispatchEvent(new Event("change"));
  }));
  await page.click("#grid-reset");
  steps.reset = { expanded: await text("grid-expanded"), slice: await text("grid-slice-count") };
  await page.click("#grid-step");
  await page.click("#grid-step");
  steps.stepped = { expanded: await text("grid-expanded"), slice: await text("grid-slice-count") };
  await page.click("#grid-play");
  await page.waitForFunction(() => window.playground.grid.frame >= 6);
  const sample = () => page.evaluate(() => ({
    frame: window.playground.grid.frame, expanded: document.getElementById("grid-expanded").textContent }));
  steps.playing = await sample();
  await page.click("#grid-reset");     // stops the animation
  for (let i = 0; i < 6; i++) await page.click("#grid-step");
  steps.midPlay = await sample();
  steps.midPlay.shot = await shot("grid-playing");
  await page.click("#grid-play");
  await page.waitForFunction(() => window.playground.grid.frame === window.playground.grid.result.slices.length);
  steps.played = { expanded: await text("grid-expanded"), slice: await text("grid-slice-count"),
                   cost: await text("grid-cost"), shot: await shot("grid-played") };

  // Navmesh: a funnel path, changed by the radius and by a new obstacle.
  const navRuns = async (action) => {
    const runs = await state("navmesh.runs");
    await action();
    await page.waitForFunction((n) => window.playground.navmesh.runs > n && window.playground.pending === 0, runs);
    const result = await state("navmesh.result");
    return { cost: await text("nav-cost"), corners: result.path.length, found: result.found,
             path: result.path, portals: result.portals.length, polygons: result.polygons.length };
  };
  steps.navmesh = await navRuns(() => page.click("[data-testid=tab-navmesh]"));
  steps.navmeshShot = await shot("navmesh");
  steps.navmeshRadius = await navRuns(() => page.evaluate(() => {
    const el = document.getElementById("nav-radius");
    el.value = "1.5";
    el.dispatchEvent(new Event("input"));
  }));
  steps.navmeshRadiusShot = await shot("navmesh-radius");
  for (const [x, y] of [[2, 18], [6, 18], [6, 22]]) await page.mouse.click(...await worldPoint("nav-canvas", "navmesh", x, y));
  steps.navmeshAdded = await navRuns(() => page.click("#nav-close"));
  steps.navmeshAdded.obstacles = await text("nav-obstacles");

  // Flow field.
  const flowRuns = await state("flow.runs");
  await page.click("[data-testid=tab-flow]");
  await page.waitForFunction((n) => window.playground.flow.runs > n && window.playground.pending === 0, flowRuns);
  steps.flow = { reachable: await text("flow-reachable"), farthest: await text("flow-max"),
                 shot: await shot("flow") };

  // Crowd: spawn two groups crossing and play.
  await page.click("[data-testid=tab-crowd]");
  await page.click("#crowd-crossing");
  const startPositions = await page.evaluate(() => window.playground.crowd.agents.map((a) => a.position));
  steps.crowdSpawnShot = await shot("crowd-spawned");
  await page.click("#crowd-play");
  await page.waitForFunction(() => window.playground.crowd.frame >= 60);
  const moved = await page.evaluate(() => window.playground.crowd.frames[window.playground.crowd.frame - 1]);
  steps.crowd = { agents: await text("crowd-agents"), frame: await text("crowd-frame"),
                  start: startPositions, moved, shot: await shot("crowd-playing") };
  await page.click("#crowd-circle");
  const circle = await page.evaluate(() => window.playground.crowd.agents.map((a) => a.position));
  await page.click("#crowd-play");
  await page.waitForFunction(() => window.playground.crowd.frame >= 250);
  steps.circle = { start: circle, moved: await page.evaluate(() => window.playground.crowd.frames[window.playground.crowd.frame - 1]) };
  await page.click("#crowd-stop");
  await settled();
  report.apiErrors = await state("errors");
  report.ok = true;
} catch (error) {
  report.ok = false;
  report.failure = String(error && error.stack || error);
  try { report.failureShot = await shot("failure"); } catch (e) { /* the page is gone */ }
} finally {
  writeFileSync(join(out, "report.json"), JSON.stringify(report, null, 1));
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
