// forcepanel.js: 3D Touch for web pages on a force panel, from the
// WebSocket stream of `panelctl serve` (docs/serve.md). An ES module with
// no dependencies:
//
//   import { ForcePanel } from "/forcepanel.js";
//   const panel = new ForcePanel();          // connects to this server's /ws
//   row.addEventListener("peek", (e) => showPreview(e.target));
//
// Every touch dispatches `forcetouchstart`, `forcetouchmove`, then
// `forcetouchend` or `forcetouchcancel` on the element under its
// touch-down point, carrying `force`, `maximumPossibleForce`, `forceN`,
// `stage` and `progress` (as Safari's force events and UITouch did). The
// panel's events arrive on the item's element: `peek`, `pop`, `peekcancel`,
// `peekactionskept`, `quickactions` (with `actions`, `side`, `align`),
// `longpress`, `livephoto`, `livephotoend`, `editmenu`. Items are declared
// in markup (`data-peek`, `data-pop`, `data-quick-actions` as JSON,
// `data-live-photo`, `data-edit-menu`); the library sends their on-screen
// rectangles to the panel as its regions, and again after layout changes,
// so the firmware's guideline checks and in-frame haptics apply to them.

/** A touch's force as it changed: `forcetouchstart`, `forcetouchmove`,
 * `forcetouchend`, `forcetouchcancel`. */
export class ForceTouchEvent extends Event {
  constructor(type, fields) {
    super(type, { bubbles: true, composed: true });
    Object.assign(this, fields);
  }
}

/** A 3D Touch event of the panel on an item: `peek`, `pop`, `peekcancel`,
 * `peekactionskept`, `quickactions`, `longpress`, `livephoto`,
 * `livephotoend`, `editmenu`. */
export class ForcePanelEvent extends Event {
  constructor(type, fields) {
    super(type, { bubbles: true, composed: true });
    Object.assign(this, fields);
  }
}

/** The panel's event types and the DOM events they become. */
export const EVENT_NAMES = {
  peek: "peek",
  pop: "pop",
  peek_cancelled: "peekcancel",
  peek_actions_kept: "peekactionskept",
  quick_actions: "quickactions",
  long_press: "longpress",
  live_photo: "livephoto",
  live_photo_end: "livephotoend",
  edit_menu: "editmenu",
};

/** The markup that declares an item, and the regions key of each flag. */
const FLAGS = { peek: "peek", pop: "pop", livePhoto: "live_photo", editMenu: "edit_menu" };
const ITEM_SELECTOR = "[data-peek],[data-pop],[data-quick-actions],[data-live-photo],[data-edit-menu]";
const MAX_NAME_BYTES = 64;

/**
 * A connection to `panelctl serve` that turns its reports into DOM events.
 *
 * Options (all optional):
 * - `url`: the WebSocket (default: `/ws` of the server this module came from);
 * - `token`: the control token (default: the page's `?token=`);
 * - `panelRect`: where the panel is on the screen, in CSS pixels of the
 *   viewport, `{left, top, width, height}` or a function returning it
 *   (default: the whole viewport);
 * - `root`: where items are declared (default: `document`);
 * - `regions`: false to leave the panel's regions alone;
 * - `reconnect`: false not to reconnect when the connection drops.
 *
 * The object is an EventTarget: `open`, `close`, `report` (every report,
 * as `event.report`), `sensitivity`, `capability`, `regions` (the panel's
 * own events, as `event.detail`), `controlreply` and `error` (a control
 * line refused: `event.message`).
 */
export class ForcePanel extends EventTarget {
  constructor(options = {}) {
    super();
    const base = new URL(".", import.meta.url);
    const page = new URL(globalThis.location ? globalThis.location.href : base.href);
    this.token = options.token ?? page.searchParams.get("token");
    const ws = new URL(options.url ?? "ws", base);
    if (ws.protocol === "http:") ws.protocol = "ws:";
    if (ws.protocol === "https:") ws.protocol = "wss:";
    if (this.token && !ws.searchParams.has("token")) ws.searchParams.set("token", this.token);
    this.url = ws.href;
    this.infoURL = new URL("panel.json", ws.href.replace(/^ws/, "http")).href;
    this.options = options;
    this.root = options.root ?? document;
    this.touches = new Map();
    this.items = new Map();
    this.info = null;
    this.socket = null;
    this.linesSent = 0;
    this.pending = new Map();
    this.lastRegions = null;
    this.retryDelay = 250;
    this.closed = false;
    this.layoutQueued = false;
    this.ready = this.start();
  }

  /** The panel's description (`/panel.json`), once loaded (tried again
   * until the server answers). */
  async start() {
    const url = this.infoURL + (this.token ? "?token=" + encodeURIComponent(this.token) : "");
    while (!this.closed) {
      try {
        const response = await fetch(url);
        if (!response.ok) throw new Error(`${this.infoURL}: ${response.status}`);
        this.info = await response.json();
        break;
      } catch (e) {
        this.dispatchEvent(Object.assign(new Event("error"), { message: e.message }));
        await new Promise((resolve) => setTimeout(resolve, this.retryDelay));
        this.retryDelay = Math.min(this.retryDelay * 2, 5000);
      }
    }
    if (this.closed) return null;
    if (this.options.regions !== false) this.watchLayout();
    this.connect();
    return this.info;
  }

  /** Closes the connection for good. */
  close() {
    this.closed = true;
    if (this.socket) this.socket.close(1000, "page closed");
  }

  connect() {
    if (this.closed) return;
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.retryDelay = 250;
      this.linesSent = 0;
      this.lastRegions = null;
      this.dispatchEvent(new Event("open"));
      if (this.options.regions !== false) this.sendRegions();
    });
    socket.addEventListener("message", (m) => this.receive(JSON.parse(m.data)));
    socket.addEventListener("close", (e) => {
      // Touches in progress lost their ends with the connection.
      for (const [id, t] of this.touches) this.dispatchTouch("forcetouchcancel", id, t, t.last);
      this.touches.clear();
      const ev = new Event("close");
      ev.code = e.code;
      ev.reason = e.reason;
      this.dispatchEvent(ev);
      for (const [, p] of this.pending) p.resolve({ control: "error", message: "connection closed" });
      this.pending.clear();
      if (this.options.reconnect !== false && !this.closed && e.code !== 1000) {
        setTimeout(() => this.connect(), this.retryDelay);
        this.retryDelay = Math.min(this.retryDelay * 2, 5000);
      }
    });
  }

  /** Sends one control line (`sensitivity firm`, `force_touch off`, ...);
   * resolves to the server's reply `{control: "ok"|"error"|"refused", ...}`. */
  send(line) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
      return Promise.resolve({ control: "error", message: "not connected" });
    }
    const number = ++this.linesSent;
    this.socket.send(line);
    return new Promise((resolve) => this.pending.set(number, { resolve, line }));
  }

  receive(message) {
    if ("control" in message) return this.receiveReply(message);
    this.dispatchEvent(Object.assign(new Event("report"), { report: message }));
    const active = [];
    const ending = [];
    const byId = new Map();
    for (const touch of message.touches) {
      byId.set(touch.id, touch);
      let t = this.touches.get(touch.id);
      if (!t) {
        const at = this.toPage(touch.x_mm, touch.y_mm);
        const target = (this.root.elementFromPoint ? this.root : document).elementFromPoint(at.x, at.y);
        t = { target: target ?? document.documentElement, last: touch };
        this.touches.set(touch.id, t);
        this.dispatchTouch("forcetouchstart", touch.id, t, touch, message);
      } else if (touch.phase === "moved" || touch.phase === "stationary") {
        this.dispatchTouch("forcetouchmove", touch.id, t, touch, message);
      }
      t.last = touch;
      if (touch.phase === "ended" || touch.phase === "cancelled") ending.push(touch);
      else active.push(touch);
    }
    for (const event of message.events) this.dispatchPanelEvent(event, byId.get(event.touch), message);
    for (const touch of ending) {
      const t = this.touches.get(touch.id);
      this.touches.delete(touch.id);
      this.dispatchTouch(touch.phase === "ended" ? "forcetouchend" : "forcetouchcancel", touch.id, t, touch, message);
    }
  }

  receiveReply(reply) {
    const p = this.pending.get(reply.line);
    this.pending.delete(reply.line);
    if (p) p.resolve(reply);
    this.dispatchEvent(Object.assign(new Event("controlreply"), { reply, line: p ? p.line : null }));
    if (reply.control !== "ok") {
      console.warn(`forcepanel: ${reply.message}`);
      this.dispatchEvent(Object.assign(new Event("error"), { message: reply.message, reply }));
    }
  }

  /** The fields every event of a touch carries. */
  touchFields(id, touch, report) {
    const at = this.toPage(touch.x_mm, touch.y_mm);
    return {
      touchId: id,
      clientX: at.x,
      clientY: at.y,
      xMM: touch.x_mm,
      yMM: touch.y_mm,
      force: touch.force,
      maximumPossibleForce: touch.max_force,
      forceN: touch.force_n,
      stage: touch.stage,
      progress: touch.progress,
      phase: touch.phase,
      item: touch.item ?? null,
      frame: report ? report.frame : null,
      tUs: report ? report.t_us : null,
    };
  }

  dispatchTouch(type, id, t, touch, report) {
    if (!t || !touch) return;
    t.target.dispatchEvent(new ForceTouchEvent(type, this.touchFields(id, touch, report)));
  }

  dispatchPanelEvent(event, touch, report) {
    const name = EVENT_NAMES[event.type];
    if (!name) {
      // Panel events (touch 0): sensitivity, capability, regions.
      this.dispatchEvent(Object.assign(new Event(event.type), { detail: event }));
      return;
    }
    const t = this.touches.get(event.touch);
    const target = (event.item && this.items.get(event.item)) || (t && t.target) || document.documentElement;
    const fields = touch ? this.touchFields(event.touch, touch, report) : { touchId: event.touch, item: event.item ?? null };
    Object.assign(fields, {
      panelEvent: event,
      actions: event.actions ?? [],
      side: event.side ?? null,
      align: event.align ?? null,
      from: event.from ?? null,
      frame: report.frame,
      tUs: report.t_us,
    });
    target.dispatchEvent(new ForcePanelEvent(name, fields));
  }

  // Geometry: panel millimetres <-> page pixels.

  rect() {
    const r = this.options.panelRect;
    const v = typeof r === "function" ? r() : r;
    return v ?? { left: 0, top: 0, width: window.innerWidth, height: window.innerHeight };
  }

  toPage(x_mm, y_mm) {
    const r = this.rect();
    return {
      x: r.left + (x_mm / this.info.board.width_mm) * r.width,
      y: r.top + (y_mm / this.info.board.height_mm) * r.height,
    };
  }

  // Regions: the page's items, from markup.

  watchLayout() {
    const queue = () => this.queueRegions();
    window.addEventListener("resize", queue);
    window.addEventListener("scroll", queue, true);
    this.resizeObserver = new ResizeObserver(queue);
    this.mutationObserver = new MutationObserver(queue);
    const root = this.root === document ? document.documentElement : this.root;
    this.mutationObserver.observe(root, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ["data-peek", "data-pop", "data-quick-actions", "data-live-photo", "data-edit-menu", "data-item", "id", "hidden"],
    });
    this.resizeObserver.observe(root);
    // Anything else that moves an item (a style, an animation's end) is
    // caught within a second; a line goes only when the items changed.
    setInterval(queue, 1000);
  }

  /** Sends the regions after the next layout (many changes make one line). */
  queueRegions() {
    if (this.layoutQueued) return;
    this.layoutQueued = true;
    requestAnimationFrame(() => {
      this.layoutQueued = false;
      this.sendRegions();
    });
  }

  /** The items declared in markup, on the panel, in document order. */
  collectItems() {
    const r = this.rect();
    const W = this.info.board.width_mm;
    const H = this.info.board.height_mm;
    const items = [];
    const names = new Set();
    const elements = [...this.root.querySelectorAll(ITEM_SELECTOR)];
    elements.forEach((el, index) => {
      this.resizeObserver?.observe(el);
      const b = el.getBoundingClientRect();
      // On the panel, in hundredths of a millimetre (as the line has them).
      const mm = (v, max) => Math.round(Math.min(Math.max(v, 0), max) * 100) / 100;
      const x0 = mm(((b.left - r.left) / r.width) * W, W);
      const x1 = mm(((b.right - r.left) / r.width) * W, W);
      const y0 = mm(((b.top - r.top) / r.height) * H, H);
      const y1 = mm(((b.bottom - r.top) / r.height) * H, H);
      // Off the panel or not shown: no item.
      if (x1 - x0 < 0.01 || y1 - y0 < 0.01) return;
      let name = truncate(el.dataset.item || el.id || `item-${index + 1}`);
      for (let n = 2; names.has(name); n++) name = truncate(`${el.dataset.item || el.id || "item"}`, 8) + `-${n}`;
      names.add(name);
      const item = { name, element: el, x_mm: x0, y_mm: y0, width_mm: x1 - x0, height_mm: y1 - y0 };
      for (const [attribute, key] of Object.entries(FLAGS)) item[key] = flag(el.dataset[attribute]);
      item.quick_action = quickActions(el);
      items.push(item);
    });
    return items;
  }

  /** Sends the items as the panel's regions when they changed. */
  sendRegions() {
    if (!this.info || !this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    const items = this.collectItems();
    const line = "regions [" + items.map(toml).join(", ") + "]";
    if (line === this.lastRegions) return;
    this.lastRegions = line;
    this.items = new Map(items.map((i) => [i.name, i.element]));
    this.send(line).then((reply) => {
      this.dispatchEvent(Object.assign(new Event("regionsreply"), { reply, items }));
    });
  }
}

function flag(value) {
  return value !== undefined && value !== "false";
}

function quickActions(el) {
  const text = el.dataset.quickActions;
  if (!text) return [];
  try {
    const list = JSON.parse(text);
    if (!Array.isArray(list)) throw new Error("not an array");
    return list;
  } catch (e) {
    console.warn(`forcepanel: data-quick-actions of`, el, `is not a JSON array of {title, subtitle, icon}: ${e.message}`);
    return [];
  }
}

/** At most `MAX_NAME_BYTES` bytes of UTF-8 (minus `spare`), whole characters. */
function truncate(name, spare = 0) {
  const encoder = new TextEncoder();
  let out = "";
  for (const ch of name) {
    if (encoder.encode(out + ch).length > MAX_NAME_BYTES - spare) break;
    out += ch;
  }
  return out;
}

/** A TOML basic string. */
function tomlString(s) {
  let out = '"';
  for (const ch of String(s)) {
    const c = ch.codePointAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (c < 0x20 || c === 0x7f) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

function tomlNumber(v) {
  return v.toFixed(2);
}

/** One item as a TOML inline table (the keys of a regions file's [[item]]). */
function toml(item) {
  const parts = [
    `name = ${tomlString(item.name)}`,
    `x_mm = ${tomlNumber(item.x_mm)}`,
    `y_mm = ${tomlNumber(item.y_mm)}`,
    `width_mm = ${tomlNumber(item.width_mm)}`,
    `height_mm = ${tomlNumber(item.height_mm)}`,
  ];
  for (const key of Object.values(FLAGS)) if (item[key]) parts.push(`${key} = true`);
  if (item.quick_action.length > 0) {
    const actions = item.quick_action.map((a) => {
      const fields = [`title = ${tomlString(a.title ?? "")}`];
      if (a.subtitle !== undefined) fields.push(`subtitle = ${tomlString(a.subtitle)}`);
      if (a.icon !== undefined) fields.push(`icon = ${tomlString(a.icon)}`);
      return "{" + fields.join(", ") + "}";
    });
    parts.push(`quick_action = [${actions.join(", ")}]`);
  }
  return "{" + parts.join(", ") + "}";
}
