// The dashboard of `panelctl serve`: the force image as a heatmap with the
// touches on it, force over time against the stage thresholds, the events
// as they happen, the health counters and frame rate, the sensitivity and
// 3D Touch switches, and the calibration certificate. It reads the image
// stream (/ws?image=1) and polls /status.json once a second.

const $ = (s) => document.querySelector(s);
const token = new URLSearchParams(location.search).get("token");
const withToken = (path) => (token ? `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : path);

const STAGE_COLOURS = { none: "#aab", hint: "#f2c94c", peek: "#f2994a", pop: "#eb5757" };
const TOUCH_COLOURS = ["#56ccf2", "#bb6bd9", "#6fcf97", "#f2c94c", "#eb5757", "#2d9cdb"];
const HISTORY_US = 5_000_000;
const BACKGROUND = "#0b0c10";

const state = {
  info: null,
  image: null,
  report: null,
  scale: 0.5,
  sensitivity: "medium",
  history: new Map(),
  events: [],
  socket: null,
};

// Colours of the force scale: dark blue (no force) to yellow (the scale's top).
const PALETTE = [
  [29, 43, 74], [38, 70, 125], [33, 113, 181], [65, 171, 93], [173, 221, 142], [254, 224, 139], [253, 174, 97], [244, 109, 67], [215, 48, 39],
];
function colour(fraction) {
  const f = Math.min(Math.max(fraction, 0), 1) * (PALETTE.length - 1);
  const i = Math.min(Math.floor(f), PALETTE.length - 2);
  const t = f - i;
  const c = PALETTE[i].map((v, k) => Math.round(v + (PALETTE[i + 1][k] - v) * t));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

async function start() {
  state.info = await (await fetch(withToken("/panel.json"))).json();
  const { board, interaction, access } = state.info;
  $("#board").textContent = board.name;
  $("#serial").textContent = state.info.calibration.serial;
  document.title = `panelctl ${board.name}`;
  state.sensitivity = interaction.sensitivity;
  $("#sensitivity").value = interaction.sensitivity;
  $("#force-touch").checked = interaction.force_touch;
  if (!access.control) {
    $("#settings").classList.add("readonly");
    $("#sensitivity").disabled = true;
    $("#force-touch").disabled = true;
    $("#access").textContent = access.token_required ? "read-only: open this page with ?token=…" : "read-only";
  }
  const canvas = $("#heatmap");
  canvas.height = Math.round((canvas.width * board.height_mm) / board.width_mm);
  drawLegend();
  certificate(state.info.calibration);
  if (state.info.factory_report) {
    const link = $("#factory-report");
    link.href = withToken(state.info.factory_report);
    link.hidden = false;
  }
  $("#sensitivity").addEventListener("change", (e) => send(`sensitivity ${e.target.value}`));
  $("#force-touch").addEventListener("change", (e) => send(`force_touch ${e.target.checked ? "on" : "off"}`));
  connect();
  pollStatus();
  requestAnimationFrame(draw);
}

// Any close (1000 included: a server restarting sends it) is followed by
// a new connection, 0.25 s doubling to 4 s apart, with jitter.
let attempt = 0;
let openedAt = 0;
function connect() {
  const url = new URL(withToken("/ws?image=1"), location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(url);
  state.socket = socket;
  socket.onopen = () => {
    openedAt = Date.now();
    setConnection("live", true);
  };
  socket.onclose = (e) => {
    setConnection(e.reason || "disconnected", false);
    if (Date.now() - openedAt > 10000) attempt = 0;
    const ceiling = Math.min(4000, 250 * 2 ** attempt++);
    setTimeout(connect, ceiling / 2 + Math.random() * (ceiling / 2));
  };
  socket.onmessage = (m) => receive(JSON.parse(m.data));
}

function setConnection(text, on) {
  $("#connection").textContent = text;
  $("#connection").className = on ? "on" : "off";
}

function send(line) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) state.socket.send(line);
}

function receive(message) {
  if ("control" in message) {
    if (message.control !== "ok") addEvent(`<b>${message.control}</b> ${escape(message.message ?? "")}`);
    return;
  }
  state.report = message;
  if (message.image_n) state.image = message.image_n;
  $("#frame").textContent = `frame ${message.frame}`;
  for (const t of message.touches) {
    let h = state.history.get(t.id);
    if (!h) state.history.set(t.id, (h = []));
    h.push([message.t_us, t.force, t.stage]);
  }
  for (const [id, h] of state.history) {
    while (h.length && h[0][0] < message.t_us - HISTORY_US) h.shift();
    if (!h.length) state.history.delete(id);
  }
  for (const e of message.events) event(e, message);
  updateTouches(message);
}

function event(e, report) {
  if (e.type === "sensitivity") {
    state.sensitivity = e.sensitivity;
    $("#sensitivity").value = e.sensitivity;
  }
  let text = `<b>${e.type}</b>`;
  if (e.touch) text += ` #${e.touch}`;
  if (e.item) text += ` ${escape(e.item)}`;
  if (e.actions && e.actions.length) text += `: ${e.actions.map((a) => escape(a.title)).join(", ")} <small>(${e.side}, ${e.align})</small>`;
  if (e.type === "capability") text += ` ${e.capability} <small>${e.reason}</small>`;
  if (e.type === "sensitivity") text += ` ${e.sensitivity}`;
  if (e.type === "regions") text += ` ${e.items} items`;
  addEvent(`${text} <small>${(report.t_us / 1e6).toFixed(2)} s</small>`);
}

function addEvent(html) {
  state.events.unshift(html);
  state.events.length = Math.min(state.events.length, 12);
  $("#events").innerHTML = state.events.map((h) => `<li>${h}</li>`).join("");
}

function updateTouches(report) {
  $("#touches tbody").innerHTML = report.touches
    .map(
      (t) =>
        `<tr><td>${t.id}</td><td>${t.phase}</td><td class="num">${t.x_mm.toFixed(2)}</td><td class="num">${t.y_mm.toFixed(2)}</td>` +
        `<td class="num">${t.force_n.toFixed(3)}</td><td class="num">${t.force.toFixed(3)}</td>` +
        `<td style="color:${STAGE_COLOURS[t.stage]}">${t.stage}</td><td>${escape(t.item ?? "")}</td></tr>`,
    )
    .join("");
  if (report.force_capability) $("#capability").textContent = `force ${report.force_capability}`;
}

async function pollStatus() {
  try {
    const s = await (await fetch("/status.json")).json();
    $("#rate").textContent = `${s.frame_rate_hz.toFixed(2)} Hz`;
    $("#force-touch").checked = s.force_touch;
    if (s.sensitivity !== state.sensitivity) {
      state.sensitivity = s.sensitivity;
      $("#sensitivity").value = s.sensitivity;
    }
    const h = s.health;
    const rows = [
      ["frames", h.frames], ["invalid", h.invalid], ["missed", h.missed], ["retries", h.retries], ["bus errors", h.bus_errors],
      ["re-inits", h.reinits], ["spikes", h.spikes], ["saturated", h.saturated], ["re-seeds", h.reseeds], ["absorbed", h.absorbed],
    ];
    $("#health").innerHTML = rows.map(([k, v]) => `<div><span>${k}</span> ${v}</div>`).join("");
    $("#clients tbody").innerHTML =
      s.clients
        .map((c) => `<tr><td>${c.id}</td><td>${escape(c.address)}</td><td>${c.stream}</td><td class="num">${c.sent}</td><td class="num">${c.dropped}</td></tr>`)
        .join("") +
      `<tr><td colspan="3">all ${s.totals.clients} (${s.totals.connected} now)</td><td class="num">${s.totals.sent}</td><td class="num">${s.totals.dropped}</td></tr>`;
    if (s.ended) return;
  } catch (e) {
    // The server went away with the end of the stream.
    return;
  }
  setTimeout(pollStatus, 1000);
}

// Drawing, once per screen refresh.

function draw() {
  drawHeatmap();
  drawPlot();
  requestAnimationFrame(draw);
}

function drawHeatmap() {
  const canvas = $("#heatmap");
  const g = canvas.getContext("2d");
  const { board } = state.info;
  const k = canvas.width / board.width_mm;
  g.fillStyle = BACKGROUND;
  g.fillRect(0, 0, canvas.width, canvas.height);
  const image = state.image ?? board.cells.map(() => 0);
  // The scale follows the largest cell force, falling back slowly.
  const peak = Math.max(...image, 0);
  state.scale = Math.max(0.5, peak, state.scale * 0.995);
  $("#legend-max").textContent = `${state.scale.toFixed(2)} N`;
  if (board.grid) {
    const p = board.grid.pitch_mm * k;
    board.cells.forEach(([x, y], i) => {
      g.fillStyle = colour(image[i] / state.scale);
      g.fillRect(x * k - p / 2 + 1, y * k - p / 2 + 1, p - 2, p - 2);
    });
  } else {
    // A plate: its outline, and each corner cell as a disc.
    g.strokeStyle = "#3a3f4b";
    g.lineWidth = 2;
    g.strokeRect(1, 1, canvas.width - 2, canvas.height - 2);
    const r = Math.min(canvas.width, canvas.height) * 0.16;
    board.cells.forEach(([x, y], i) => {
      g.fillStyle = colour(image[i] / state.scale);
      g.beginPath();
      g.arc(Math.min(Math.max(x * k, r), canvas.width - r), Math.min(Math.max(y * k, r), canvas.height - r), r, 0, 2 * Math.PI);
      g.fill();
    });
  }
  const report = state.report;
  if (!report) return;
  for (const t of report.touches) {
    const x = t.x_mm * k;
    const y = t.y_mm * k;
    const radius = 8 + (t.force / t.max_force) * Math.min(canvas.width, canvas.height) * 0.35;
    g.strokeStyle = STAGE_COLOURS[t.stage];
    g.lineWidth = t.stage === "pop" ? 6 : 3;
    g.beginPath();
    g.arc(x, y, radius, 0, 2 * Math.PI);
    g.stroke();
    g.fillStyle = "#fff";
    g.font = "bold 14px sans-serif";
    g.fillText(`${t.id}`, x - 4, y + 5);
  }
}

function drawLegend() {
  const c = $("#legend");
  const g = c.getContext("2d");
  for (let x = 0; x < c.width; x++) {
    g.fillStyle = colour(x / (c.width - 1));
    g.fillRect(x, 0, 1, c.height);
  }
}

function drawPlot() {
  const canvas = $("#plot");
  const g = canvas.getContext("2d");
  const W = canvas.width;
  const H = canvas.height;
  g.fillStyle = BACKGROUND;
  g.fillRect(0, 0, W, H);
  const thresholds = state.info.interaction.thresholds[state.sensitivity];
  const top = Math.max(thresholds.pop * 1.15, ...[...state.history.values()].flat().map((s) => s[1] * 1.05));
  const now = state.report ? state.report.t_us : 0;
  const X = (t) => W - ((now - t) / HISTORY_US) * W;
  const Y = (f) => H - 6 - (f / top) * (H - 12);
  g.font = "12px sans-serif";
  for (const [name, value] of Object.entries(thresholds)) {
    g.strokeStyle = STAGE_COLOURS[name];
    g.setLineDash([6, 5]);
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(0, Y(value));
    g.lineTo(W, Y(value));
    g.stroke();
    g.fillStyle = STAGE_COLOURS[name];
    // Hint sits just below peek: its label goes to the other end.
    const label = `${name} ${value.toFixed(2)}`;
    g.fillText(label, name === "hint" ? W - g.measureText(label).width - 40 : 6, Y(value) - 4);
  }
  g.setLineDash([]);
  for (const [id, samples] of state.history) {
    g.strokeStyle = TOUCH_COLOURS[id % TOUCH_COLOURS.length];
    g.lineWidth = 2;
    g.beginPath();
    samples.forEach(([t, f], i) => (i ? g.lineTo(X(t), Y(f)) : g.moveTo(X(t), Y(f))));
    g.stroke();
    const last = samples[samples.length - 1];
    g.fillStyle = g.strokeStyle;
    g.fillText(`#${id}`, Math.min(X(last[0]) + 4, W - 24), Y(last[1]));
  }
}

function certificate(c) {
  const box = $("#cert");
  if (c.nominal) {
    box.innerHTML = `<span class="badge none">uncalibrated</span> nominal gains; force is unavailable until the panel is calibrated.`;
    return;
  }
  // Records of the simulator's truth (version 1) carry no result or checks.
  const badge = c.result === "pass" ? "pass" : c.result ? "fail" : "none";
  let html = `<p><span class="badge ${badge}">${escape((c.result || c.source).toUpperCase())}</span>
    serial <b>${escape(c.serial)}</b>, ${escape(c.created)}, source ${escape(c.source)}${c.plan ? `, plan ${escape(c.plan)}` : ""},
    reference ${c.reference_temp_c} °C</p>`;
  if (c.fit) html += `<p>Fit: ${escape(c.fit.model)}, ${c.fit.placements} placements, residual ${c.fit.residual_pct}%${c.fit.spread_mm ? `, spread ${c.fit.spread_mm} mm` : ""}</p>`;
  html += `<table><tr><th>cell</th><th>gain counts/N</th><th>linearity /N</th><th>noise counts</th></tr>` +
    c.cells.map((cell, i) => `<tr><td>${i}</td><td class="num">${cell.gain_counts_per_n.toFixed(1)}</td><td class="num">${cell.linearity_per_n.toPrecision(3)}</td><td class="num">${cell.noise_counts?.toFixed(1) ?? "–"}</td></tr>`).join("") +
    `</table>`;
  if (c.checks.length) {
    html += `<table><tr><th>check</th><th>subject</th><th>value</th><th>limit</th><th></th></tr>` +
      c.checks.map((k) => `<tr><td>${escape(k.name)}</td><td>${escape(k.subject)}</td><td class="num">${k.value.toPrecision(3)} ${escape(k.unit)}</td>` +
        `<td class="num">${k.limit} ${escape(k.unit)}</td><td class="${k.passed ? "ok" : "bad"}">${k.passed ? "pass" : "fail"}</td></tr>`).join("") + `</table>`;
  } else {
    html += `<p><small>No checks in this record (${escape(c.source)}).</small></p>`;
  }
  box.innerHTML = html;
}

function escape(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

start();
