// forcepanel.js: 3D Touch for web pages on a force panel, from the
// WebSocket stream of `panelctl serve` (docs/serve.md). An ES module with
// no dependencies (`/forcepanel.global.js` is the same as a classic script
// with a global `forcepanel`; `/forcepanel.d.ts` declares both):
//
//   import { ForcePanel } from "http://panel.local:8080/forcepanel.js";
//   const panel = new ForcePanel();          // connects to the server it came from
//   row.addEventListener("peek", (e) => showPreview(e.target));
//
// Every touch dispatches `forcetouchstart`, `forcetouchmove` (at most once
// an animation frame, every sample in `getCoalescedEvents()`), then
// `forcetouchend` or `forcetouchcancel` on the element under its
// touch-down point, carrying `force`, `maximumPossibleForce`, `forceN`,
// `pressure`, `stage` and `progress`. The panel's events arrive on the
// item's element: `peek`, `pop`, `peekcancel`, `peekactionskept`,
// `quickactions` (with `actions`, `side`, `align`), `longpress`,
// `livephoto`, `livephotoend`, `editmenu`. Items are declared in markup
// (`data-peek`, `data-pop`, `data-quick-actions` as JSON, `data-live-photo`,
// `data-edit-menu`); the library sends their on-screen rectangles to the
// panel as this page's own items, and again after layout changes. With
// `compat`, it also dispatches Pointer Events, Touch Events with `force`
// and WebKit's force events, so code written for those works unchanged.

// The script's own address (the classic build puts document.currentScript's here).
const SCRIPT_URL = import.meta.url;

/** A touch's force as it changed: `forcetouchstart`, `forcetouchmove`,
 * `forcetouchend`, `forcetouchcancel`. */
export class ForceTouchEvent extends Event {
  constructor(type, fields, coalesced) {
    super(type, { bubbles: true, composed: true });
    Object.assign(this, fields);
    this.coalesced = coalesced ?? null;
  }

  /** The samples this event stands for, oldest first (every report of the
   * touch since the previous `forcetouchmove`; the event itself when it
   * stands for one). */
  getCoalescedEvents() {
    return this.coalesced ?? [this];
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

/** The markup of each key of an item (what an item refused by the panel
 * is told in: the attribute to fix). */
export const ATTRIBUTES = {
  name: "data-item",
  peek: "data-peek",
  pop: "data-pop",
  live_photo: "data-live-photo",
  edit_menu: "data-edit-menu",
  quick_action: "data-quick-actions",
  title: "data-quick-actions",
  subtitle: "data-quick-actions",
  icon: "data-quick-actions",
  x_mm: "its position",
  y_mm: "its position",
  width_mm: "its size",
  height_mm: "its size",
};

/** WebKit's force scale (`MouseEvent.webkitForce`): a click, a force click. */
export const WEBKIT_FORCE_AT_MOUSE_DOWN = 1;
export const WEBKIT_FORCE_AT_FORCE_MOUSE_DOWN = 2;

/** Pointer ids of the panel's touches: this plus the touch's id (the
 * browser's own pointers keep their small ids). */
export const POINTER_ID_BASE = 1000;

/** The markup that declares an item, and the regions key of each flag. */
const FLAGS = { peek: "peek", pop: "pop", livePhoto: "live_photo", editMenu: "edit_menu" };
const ITEM_SELECTOR = "[data-peek],[data-pop],[data-quick-actions],[data-live-photo],[data-edit-menu]";
const MAX_NAME_BYTES = 64;
/** What one message may hold (the server closes the connection, 1009, beyond). */
const MAX_MESSAGE_BYTES = 256 * 1024;
/** A scoped item name: `ws#12/row-3`, the page `ws#12`'s item `row-3`. */
const SCOPED = /^ws#\d+\//;

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
 * - `regions`: false to declare no items;
 * - `reconnect`: false not to reconnect when the connection closes;
 * - `coalesce`: false for a `forcetouchmove` per report instead of per
 *   animation frame;
 * - `compat`: true (or `{pointer, touch, webkit}`) to dispatch the web's
 *   own input events too: Pointer Events, Touch Events, WebKit's force events.
 *
 * The object is an EventTarget: `open`, `close`, `report` (every report,
 * as `event.report`), `sensitivity`, `capability`, `regions` (the panel's
 * own events, as `event.detail`), `controlreply`, `regionsreply`, and
 * `error` (`event.message`; for an item the panel refused, `event.element`
 * and `event.attribute` too).
 */
export class ForcePanel extends EventTarget {
  constructor(options = {}) {
    super();
    const base = new URL(".", SCRIPT_URL);
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
    this.coalesce = options.coalesce !== false;
    const c = options.compat === true ? { pointer: true, touch: true, webkit: true } : options.compat || {};
    this.compat = { pointer: !!c.pointer, touch: !!c.touch, webkit: !!c.webkit };
    if (this.compat.webkit) defineWebKitConstants();
    /** Touches on this page: id -> {target, last, samples, foreign, ...}. */
    this.touches = new Map();
    this.items = new Map();
    this.itemList = [];
    this.info = null;
    this.socket = null;
    /** This page's scope on the server (`ws#12/`), from its items' answer. */
    this.scope = null;
    this.sensitivity = null;
    this.linesSent = 0;
    this.pending = new Map();
    this.lastRegions = null;
    this.attempt = 0;
    this.openedAt = 0;
    this.closed = false;
    this.reconnectTimer = null;
    this.layoutQueued = false;
    this.frameQueued = false;
    this.ready = this.start();
  }

  /** Loads `/panel.json`, then connects; resolves to the panel's description. */
  async start() {
    if (!(await this.loadInfo())) return null;
    if (this.options.regions !== false) this.watchLayout();
    this.connect();
    this.watchNetwork();
    return this.info;
  }

  /** `/panel.json`, tried again with backoff until the server answers;
   * false when the page closed the panel meanwhile. */
  async loadInfo() {
    const url = this.infoURL + (this.token ? "?token=" + encodeURIComponent(this.token) : "");
    while (!this.closed) {
      try {
        const response = await fetch(url);
        if (!response.ok) throw new Error(`${this.infoURL}: ${response.status}`);
        this.info = await response.json();
        this.sensitivity = this.info.interaction.sensitivity;
        return true;
      } catch (e) {
        this.dispatchEvent(Object.assign(new Event("error"), { message: e.message }));
        await new Promise((resolve) => (this.reconnectTimer = setTimeout(resolve, this.backoff())));
      }
    }
    return false;
  }

  /** The next wait before trying again: 0.25 s doubling to 4 s, each
   * between half and all of that (jitter, so that pages that lost the
   * same server do not all come back at once). */
  backoff() {
    const ceiling = Math.min(4000, 250 * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 10);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  /** Closes the connection for good. */
  close() {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    if (this.socket) this.socket.close(1000, "page closed");
  }

  connect() {
    if (this.closed) return;
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.openedAt = Date.now();
      this.linesSent = 0;
      this.lastRegions = null;
      this.scope = null;
      this.dispatchEvent(new Event("open"));
      if (this.options.regions !== false) this.sendRegions();
    });
    socket.addEventListener("message", (m) => {
      if (typeof m.data === "string") this.receive(JSON.parse(m.data));
    });
    socket.addEventListener("close", (e) => {
      if (this.socket !== socket) return;
      // Touches in progress lost their ends with the connection.
      for (const [id, t] of [...this.touches]) this.endTouch(id, t, t.last, null, true);
      const ev = new Event("close");
      ev.code = e.code;
      ev.reason = e.reason;
      this.dispatchEvent(ev);
      for (const group of new Set(this.pending.values())) {
        group.resolve({ control: "error", line: group.first, message: "connection closed", replies: group.replies });
      }
      this.pending.clear();
      // Any close the page did not ask for, 1000 included (a server
      // restarting sends it), is followed by a new connection.
      if (this.options.reconnect !== false && !this.closed) this.reconnect();
    });
  }

  /** A new connection after a wait (`backoff`), `/panel.json` read again
   * first (the panel may have changed with the server). */
  reconnect() {
    if (this.reconnectTimer !== null && this.reconnecting) return;
    if (Date.now() - this.openedAt > 10000) this.attempt = 0;
    this.reconnecting = true;
    this.reconnectTimer = setTimeout(async () => {
      this.reconnecting = false;
      this.reconnectTimer = null;
      if (await this.loadInfo()) this.connect();
    }, this.backoff());
  }

  /** Back online, or the page shown again: try at once. */
  watchNetwork() {
    const now = () => {
      if (this.closed || !this.reconnecting) return;
      clearTimeout(this.reconnectTimer);
      this.reconnecting = false;
      this.reconnectTimer = null;
      this.attempt = 0;
      this.reconnect();
    };
    globalThis.addEventListener?.("online", now);
    globalThis.document?.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") now();
    });
  }

  // Control lines.

  /**
   * Sends control lines (`sensitivity firm`, `force_touch off`, ...; a
   * message may hold several, one a line). Resolves once the server has
   * answered every line: to the answer itself for one line
   * (`{control: "ok"|"error"|"refused", line, message?}`), and for
   * several to `{control, line, message, replies}` where `control` is
   * "ok" when every line was, else the first other answer's, and
   * `replies` holds each line's answer in order. The server numbers the
   * lines of a connection from 1 as this does: at each LF (CRLF counts
   * as one), an empty message being one empty line.
   */
  send(text) {
    text = String(text);
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
      return Promise.resolve({ control: "error", line: null, message: "not connected", replies: [] });
    }
    if (new TextEncoder().encode(text).length > MAX_MESSAGE_BYTES) {
      return Promise.resolve({ control: "error", line: null, message: `a message may have at most ${MAX_MESSAGE_BYTES} bytes`, replies: [] });
    }
    const count = lineCount(text);
    const first = this.linesSent + 1;
    this.linesSent += count;
    this.socket.send(text);
    return new Promise((resolve) => {
      const group = { first, count, replies: new Array(count), answered: 0, text, resolve };
      for (let n = first; n < first + count; n++) this.pending.set(n, group);
    });
  }

  receiveReply(reply) {
    const group = this.pending.get(reply.line);
    this.pending.delete(reply.line);
    if (group) {
      group.replies[reply.line - group.first] = reply;
      if (++group.answered === group.count) group.resolve(combine(group));
    }
    this.dispatchEvent(Object.assign(new Event("controlreply"), { reply, line: group ? group.text : null }));
    if (reply.control !== "ok" && !reply.refused) {
      console.warn(`forcepanel: ${reply.message}`);
      this.dispatchEvent(Object.assign(new Event("error"), { message: reply.message, reply }));
    }
  }

  // Reports.

  receive(message) {
    if ("control" in message) return this.receiveReply(message);
    this.dispatchEvent(Object.assign(new Event("report"), { report: message }));
    // Every report lists every touch still down: one this page knows that
    // is not listed ended in a report it never got (a slow page loses
    // messages), so it ends here, cancelled.
    const listed = new Set(message.touches.map((t) => t.id));
    for (const [id, t] of [...this.touches]) {
      if (!listed.has(id)) this.endTouch(id, t, t.last, message, true);
    }
    const byId = new Map();
    const ending = [];
    for (const touch of message.touches) {
      byId.set(touch.id, touch);
      let t = this.touches.get(touch.id);
      if (!t) {
        t = this.beginTouch(touch, message);
      } else if (!t.foreign && (touch.phase === "moved" || touch.phase === "stationary")) {
        t.samples.push(this.touchFields(touch.id, touch, message));
        if (t.samples.length > 512) t.samples.splice(0, t.samples.length - 512);
        if (this.coalesce) this.queueFrame();
        else this.flushMoves(touch.id, t);
      }
      t.last = touch;
      if (touch.phase === "ended" || touch.phase === "cancelled") ending.push(touch);
    }
    for (const event of message.events) {
      if (event.type === "sensitivity") this.sensitivity = event.sensitivity;
      this.dispatchPanelEvent(event, byId.get(event.touch), message);
    }
    for (const touch of ending) {
      const t = this.touches.get(touch.id);
      if (t) this.endTouch(touch.id, t, touch, message, touch.phase === "cancelled");
    }
  }

  /** Whether an item named in the stream is this page's to hear of: its
   * own (in its scope), the server's own (not scoped), or none. */
  mine(item) {
    if (item === null || item === undefined) return true;
    if (!SCOPED.test(item)) return true;
    return this.scope !== null && item.startsWith(this.scope);
  }

  /** The item's name as this page declared it. */
  ownName(item) {
    return item && this.scope && item.startsWith(this.scope) ? item.slice(this.scope.length) : item ?? null;
  }

  beginTouch(touch, report) {
    const at = this.toPage(touch.x_mm, touch.y_mm);
    const foreign = !this.mine(touch.item);
    const target = foreign ? null : (this.root.elementFromPoint ? this.root : document).elementFromPoint(at.x, at.y);
    const t = { target: target ?? document.documentElement, last: touch, samples: [], foreign, primary: false };
    this.touches.set(touch.id, t);
    if (foreign) return t;
    const fields = this.touchFields(touch.id, touch, report);
    if (this.compat.pointer) this.pointerStart(touch.id, t, fields);
    if (this.compat.webkit) this.webkitStart(t, fields);
    t.target.dispatchEvent(new ForceTouchEvent("forcetouchstart", fields));
    if (this.compat.touch) this.touchEvent("touchstart", touch.id, t, fields);
    return t;
  }

  endTouch(id, t, touch, report, cancelled) {
    this.flushMoves(id, t);
    this.touches.delete(id);
    if (t.foreign || !touch) return;
    const fields = this.touchFields(id, touch, report);
    if (cancelled) fields.phase = "cancelled";
    t.target.dispatchEvent(new ForceTouchEvent(cancelled ? "forcetouchcancel" : "forcetouchend", fields));
    if (this.compat.pointer) this.pointerEnd(id, t, fields, cancelled);
    if (this.compat.touch) this.touchEvent(cancelled ? "touchcancel" : "touchend", id, t, fields);
    if (this.compat.webkit) this.webkitEnd(t, fields);
  }

  queueFrame() {
    if (this.frameQueued) return;
    this.frameQueued = true;
    requestAnimationFrame(() => {
      this.frameQueued = false;
      for (const [id, t] of this.touches) this.flushMoves(id, t);
    });
  }

  /** The touch's samples since its last `forcetouchmove`, as one. */
  flushMoves(id, t) {
    if (t.foreign || t.samples.length === 0) return;
    const samples = t.samples;
    t.samples = [];
    const last = samples[samples.length - 1];
    const coalesced = samples.map((f) => new ForceTouchEvent("forcetouchmove", f));
    t.target.dispatchEvent(new ForceTouchEvent("forcetouchmove", last, coalesced));
    if (this.compat.pointer) this.pointerMove(id, t, samples);
    if (this.compat.touch) this.touchEvent("touchmove", id, t, last);
    if (this.compat.webkit) this.webkitMove(t, samples);
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
      pressure: touch.max_force > 0 ? Math.min(1, Math.max(0, touch.force / touch.max_force)) : 0,
      forceN: touch.force_n,
      stage: touch.stage,
      progress: touch.progress,
      phase: touch.phase,
      item: this.ownName(touch.item),
      frame: report ? report.frame : null,
      tUs: report ? report.t_us : null,
    };
  }

  dispatchPanelEvent(event, touch, report) {
    const name = EVENT_NAMES[event.type];
    if (!name) {
      // Panel events (touch 0): sensitivity, capability, regions.
      this.dispatchEvent(Object.assign(new Event(event.type), { detail: event }));
      return;
    }
    const t = this.touches.get(event.touch);
    if ((t && t.foreign) || !this.mine(event.item)) return;
    if (t) this.flushMoves(event.touch, t);
    const item = this.ownName(event.item);
    const target = (item && this.items.get(item)) || (t && t.target) || document.documentElement;
    const fields = touch ? this.touchFields(event.touch, touch, report) : { touchId: event.touch };
    Object.assign(fields, {
      item,
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

  // The web's own input events (`compat`).

  pointerInit(id, t, f, type) {
    return {
      bubbles: type !== "pointerenter" && type !== "pointerleave",
      cancelable: type !== "pointerenter" && type !== "pointerleave" && type !== "pointercancel",
      composed: true,
      pointerId: POINTER_ID_BASE + (id % 1000000),
      pointerType: "touch",
      isPrimary: t.primary,
      pressure: type === "pointerup" || type === "pointerout" || type === "pointerleave" ? 0 : f.pressure,
      width: 1,
      height: 1,
      clientX: f.clientX,
      clientY: f.clientY,
      screenX: f.clientX + (globalThis.screenX ?? 0),
      screenY: f.clientY + (globalThis.screenY ?? 0),
      button: type === "pointerdown" || type === "pointerup" ? 0 : -1,
      buttons: type === "pointerup" || type === "pointercancel" || type === "pointerout" || type === "pointerleave" ? 0 : 1,
    };
  }

  pointer(type, id, t, f, coalesced) {
    const init = this.pointerInit(id, t, f, type);
    if (coalesced) init.coalescedEvents = coalesced;
    const ev = new PointerEvent(type, init);
    if (coalesced && (typeof ev.getCoalescedEvents !== "function" || ev.getCoalescedEvents().length !== coalesced.length)) {
      Object.defineProperty(ev, "getCoalescedEvents", { value: () => coalesced });
    }
    // What pages written for the panel read, on the pointer event too.
    Object.assign(ev, { force: f.force, maximumPossibleForce: f.maximumPossibleForce, stage: f.stage });
    t.target.dispatchEvent(ev);
  }

  pointerStart(id, t, f) {
    t.primary = ![...this.touches.values()].some((o) => o !== t && o.primary && !o.foreign);
    for (const type of ["pointerover", "pointerenter", "pointerdown"]) this.pointer(type, id, t, f);
  }

  pointerMove(id, t, samples) {
    const coalesced = samples.map((f) => new PointerEvent("pointermove", this.pointerInit(id, t, f, "pointermove")));
    this.pointer("pointermove", id, t, samples[samples.length - 1], coalesced);
  }

  pointerEnd(id, t, f, cancelled) {
    for (const type of [cancelled ? "pointercancel" : "pointerup", "pointerout", "pointerleave"]) this.pointer(type, id, t, f);
  }

  touchEvent(type, id, t, f) {
    const touch = (o, fields) => {
      const init = {
        identifier: POINTER_ID_BASE + (o % 1000000),
        target: t.target,
        clientX: fields.clientX,
        clientY: fields.clientY,
        pageX: fields.clientX + (globalThis.scrollX ?? 0),
        pageY: fields.clientY + (globalThis.scrollY ?? 0),
        screenX: fields.clientX,
        screenY: fields.clientY,
        force: fields.pressure,
      };
      try {
        return new Touch(init);
      } catch {
        return init;
      }
    };
    const active = [...this.touches].filter(([, o]) => !o.foreign && o.last).map(([o, v]) => touch(o, this.touchFields(o, v.last, null)));
    const changed = [touch(id, f)];
    const init = { bubbles: true, cancelable: type !== "touchcancel", composed: true, touches: active, targetTouches: active, changedTouches: changed };
    let ev;
    try {
      ev = new TouchEvent(type, init);
    } catch {
      ev = Object.assign(new Event(type, init), { touches: active, targetTouches: active, changedTouches: changed });
    }
    t.target.dispatchEvent(ev);
  }

  /** WebKit's force on its scale: `WEBKIT_FORCE_AT_MOUSE_DOWN` at a
   * touch, `WEBKIT_FORCE_AT_FORCE_MOUSE_DOWN` at the peek threshold of
   * the current sensitivity (a force click is a peek), up to 3. */
  webkitForce(force) {
    const down = MouseEvent.WEBKIT_FORCE_AT_MOUSE_DOWN ?? WEBKIT_FORCE_AT_MOUSE_DOWN;
    const deep = MouseEvent.WEBKIT_FORCE_AT_FORCE_MOUSE_DOWN ?? WEBKIT_FORCE_AT_FORCE_MOUSE_DOWN;
    const thresholds = this.info.interaction.thresholds[this.sensitivity ?? this.info.interaction.sensitivity];
    return Math.min(3, down + ((deep - down) * force) / thresholds.peek);
  }

  mouse(type, t, f, buttons) {
    const ev = new MouseEvent(type, { bubbles: true, cancelable: true, composed: true, clientX: f.clientX, clientY: f.clientY, button: 0, buttons });
    Object.defineProperty(ev, "webkitForce", { value: this.webkitForce(f.force) });
    t.target.dispatchEvent(ev);
  }

  webkitStart(t, f) {
    t.forceDown = false;
    this.mouse("webkitmouseforcewillbegin", t, f, 0);
    this.mouse("mousedown", t, f, 1);
  }

  webkitMove(t, samples) {
    for (const f of samples) {
      this.mouse("webkitmouseforcechanged", t, f, 1);
      const deep = f.stage === "peek" || f.stage === "pop";
      if (deep && !t.forceDown) {
        t.forceDown = true;
        this.mouse("webkitmouseforcedown", t, f, 1);
      } else if (!deep && t.forceDown) {
        t.forceDown = false;
        this.mouse("webkitmouseforceup", t, f, 1);
      }
    }
    this.mouse("mousemove", t, samples[samples.length - 1], 1);
  }

  webkitEnd(t, f) {
    if (t.forceDown) this.mouse("webkitmouseforceup", t, f, 0);
    t.forceDown = false;
    this.mouse("mouseup", t, f, 0);
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

  // Items: the page's own, from markup.

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

  /** Sends the items after the next layout (many changes make one line). */
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

  /** Sends the page's items when they changed; each item the panel
   * refuses is an `error` event naming its element and the attribute to
   * fix, and the others are kept. */
  sendRegions() {
    if (!this.info || !this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    const items = this.collectItems();
    const line = "regions [" + items.map(toml).join(", ") + "]";
    if (line === this.lastRegions) return;
    this.lastRegions = line;
    this.itemList = items;
    this.items = new Map(items.map((i) => [i.name, i.element]));
    this.send(line).then((reply) => {
      if (reply.scope) this.scope = reply.scope;
      for (const r of reply.refused ?? []) this.refusedItem(items[r.item - 1], r);
      this.dispatchEvent(Object.assign(new Event("regionsreply"), { reply, items }));
    });
  }

  /** An item the panel refused, in the page's terms. */
  refusedItem(item, r) {
    const attribute = ATTRIBUTES[r.key] ?? null;
    const el = item ? item.element : null;
    const who = el ? describe(el) : `item ${r.item}`;
    // The server's reason without its place (`item[3] pop: `) and its
    // advice in a regions file's words (`(set pop = true)`).
    let reason = r.message.replace(/^item\[\d+\](\.quick_action\[\d+\])? ?[a-z_]*: /, "");
    reason = reason.replace(/\(set ([a-z_]+) = true\)/, (_, key) => `(add ${ATTRIBUTES[key] ?? key})`);
    const where = attribute ? (attribute.startsWith("data-") ? `${attribute}${r.action ? ` [${r.action}]` : ""}` : attribute) : "the item";
    const message = `forcepanel: ${who}: ${where}: ${reason}`;
    console.warn(message);
    this.dispatchEvent(Object.assign(new Event("error"), { message, element: el, attribute, refused: r }));
  }
}

/** How many lines the server counts in a message (as `ControlText` does). */
function lineCount(text) {
  const parts = text.split("\n");
  return parts.length > 1 && parts[parts.length - 1] === "" ? parts.length - 1 : parts.length;
}

/** The answer to a message of several lines. */
function combine(group) {
  if (group.count === 1) return Object.assign({ replies: group.replies }, group.replies[0]);
  const other = group.replies.find((r) => r.control !== "ok");
  return {
    control: other ? other.control : "ok",
    line: group.first,
    message: other ? other.message : undefined,
    replies: group.replies,
  };
}

/** `<div id="mail">`, `<div data-item="row">`: an element as a developer finds it. */
function describe(el) {
  const tag = el.tagName.toLowerCase();
  if (el.id) return `<${tag} id="${el.id}">`;
  if (el.dataset.item) return `<${tag} data-item="${el.dataset.item}">`;
  return `<${tag}>`;
}

/** `MouseEvent.WEBKIT_FORCE_AT_MOUSE_DOWN` and `..._FORCE_MOUSE_DOWN`
 * where the browser has none (every browser but Safari). */
function defineWebKitConstants() {
  if (typeof MouseEvent === "undefined") return;
  for (const [name, value] of [["WEBKIT_FORCE_AT_MOUSE_DOWN", WEBKIT_FORCE_AT_MOUSE_DOWN], ["WEBKIT_FORCE_AT_FORCE_MOUSE_DOWN", WEBKIT_FORCE_AT_FORCE_MOUSE_DOWN]]) {
    if (MouseEvent[name] === undefined) Object.defineProperty(MouseEvent, name, { value });
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
