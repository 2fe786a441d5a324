// Type declarations of forcepanel.js (docs/serve.md), served by
// `panelctl serve` at /forcepanel.d.ts. The ES module:
//
//   import { ForcePanel } from "http://panel.local:8080/forcepanel.js";
//
// and the classic script /forcepanel.global.js, whose exports are the
// global `forcepanel` (`new forcepanel.ForcePanel()`), are declared by
// the same file: `export as namespace forcepanel`.

export as namespace forcepanel;

/** A touch's stage: none, hint (toward a peek), peek, pop. */
export type Stage = "none" | "hint" | "peek" | "pop";
/** UITouch's phases. */
export type Phase = "began" | "moved" | "stationary" | "ended" | "cancelled";
export type Sensitivity = "light" | "medium" | "firm";

/** One touch of a report line (docs/formats.md, the report stream). */
export interface ReportTouch {
  id: number;
  phase: Phase;
  x_mm: number;
  y_mm: number;
  force_n: number;
  force: number;
  max_force: number;
  stage: Stage;
  progress: number;
  item: string | null;
  degraded?: boolean;
  reason?: string;
  into?: number;
}

/** One event of a report line. */
export interface ReportEvent {
  type: string;
  touch: number;
  item?: string | null;
  from?: "press" | "peek" | "long_press" | string;
  side?: "below" | "above";
  align?: "left" | "center" | "right";
  actions?: QuickAction[];
  sensitivity?: Sensitivity;
  capability?: string;
  name?: string;
  items?: number;
  [key: string]: unknown;
}

/** One report: a line of the stream. */
export interface Report {
  t_us: number;
  frame: number;
  touches: ReportTouch[];
  events: ReportEvent[];
  force_capability: string;
}

export interface QuickAction {
  title: string;
  subtitle?: string;
  icon?: string;
}

/** An item the panel refused, as its answer names it. */
export interface RefusedItem {
  /** 1-based, in the page's list of items. */
  item: number;
  name: string | null;
  /** The key at fault (`pop`, `x_mm`, `title`, ...); "" for the whole item. */
  key: string;
  /** The quick action at fault, 1-based. */
  action?: number;
  message: string;
}

/** The server's answer to a control line, or to every line of a message. */
export interface ControlReply {
  control: "ok" | "error" | "refused";
  /** The (first) line's number on this connection; null when nothing was sent. */
  line: number | null;
  message?: string;
  /** Each line's answer, in order. */
  replies: ControlReply[];
  /** For a page's items: its scope on the server (`ws#12/`), how many
   * items were kept, and each one refused. */
  scope?: string;
  kept?: number;
  refused?: RefusedItem[];
}

/** The fields every touch event carries. */
export interface TouchFields {
  touchId: number;
  clientX: number;
  clientY: number;
  xMM: number;
  yMM: number;
  /** UITouch's scale: 1.0 is an average touch. */
  force: number;
  maximumPossibleForce: number;
  /** force / maximumPossibleForce, 0..1 (Pointer Events' scale). */
  pressure: number;
  forceN: number;
  stage: Stage;
  progress: number;
  phase: Phase;
  /** The item's name as the page declared it, or null. */
  item: string | null;
  frame: number | null;
  tUs: number | null;
}

/** `forcetouchstart`, `forcetouchmove`, `forcetouchend`, `forcetouchcancel`. */
export declare class ForceTouchEvent extends Event {
  constructor(type: string, fields: TouchFields, coalesced?: ForceTouchEvent[] | null);
  /** Every report of the touch this event stands for, oldest first. */
  getCoalescedEvents(): ForceTouchEvent[];
}
/** Its fields (declaration merging: the class has every field of `TouchFields`). */
export interface ForceTouchEvent extends TouchFields {}

/** `peek`, `pop`, `peekcancel`, `peekactionskept`, `quickactions`,
 * `longpress`, `livephoto`, `livephotoend`, `editmenu`. */
export declare class ForcePanelEvent extends Event {
  constructor(type: string, fields: object);
  touchId: number;
  item: string | null;
  panelEvent: ReportEvent;
  actions: QuickAction[];
  side: "below" | "above" | null;
  align: "left" | "center" | "right" | null;
  from: string | null;
  frame: number;
  tUs: number;
}
/** With the touch's fields when the event is about a touch still known. */
export interface ForcePanelEvent extends Partial<Omit<TouchFields, "touchId" | "item" | "frame" | "tUs">> {}

export declare const EVENT_NAMES: Readonly<Record<string, string>>;
export declare const ATTRIBUTES: Readonly<Record<string, string>>;
export declare const WEBKIT_FORCE_AT_MOUSE_DOWN: number;
export declare const WEBKIT_FORCE_AT_FORCE_MOUSE_DOWN: number;
export declare const POINTER_ID_BASE: number;

export interface PanelRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface ForcePanelOptions {
  /** The WebSocket (default: /ws of the server the module came from). */
  url?: string;
  /** The control token (default: the page's ?token=). */
  token?: string | null;
  /** Where the panel is, in CSS pixels of the viewport (default: all of it). */
  panelRect?: PanelRect | (() => PanelRect);
  /** Where items are declared (default: document). */
  root?: ParentNode & { elementFromPoint?(x: number, y: number): Element | null };
  /** false: declare no items. */
  regions?: boolean;
  /** false: do not reconnect when the connection closes. */
  reconnect?: boolean;
  /** false: a forcetouchmove per report instead of per animation frame. */
  coalesce?: boolean;
  /** The web's own input events too: Pointer Events, Touch Events with
   * force, WebKit's force events. */
  compat?: boolean | { pointer?: boolean; touch?: boolean; webkit?: boolean };
}

/** The panel's description, `/panel.json`. */
export interface PanelInfo {
  board: {
    name: string;
    description: string;
    width_mm: number;
    height_mm: number;
    rate_hz: number;
    cells: [number, number][];
    grid: { cols: number; rows: number; pitch_mm: number } | null;
  };
  interaction: {
    average_touch_n: number;
    max_force: number;
    sensitivity: Sensitivity;
    force_touch: boolean;
    thresholds: Record<Sensitivity, { hint: number; peek: number; pop: number }>;
  };
  calibration: Record<string, unknown>;
  access: { control: boolean; token_required: boolean };
}

export interface ForcePanelEventMap {
  open: Event;
  close: Event & { code: number; reason: string };
  report: Event & { report: Report };
  sensitivity: Event & { detail: ReportEvent };
  capability: Event & { detail: ReportEvent };
  regions: Event & { detail: ReportEvent };
  controlreply: Event & { reply: ControlReply; line: string | null };
  regionsreply: Event & { reply: ControlReply; items: object[] };
  error: Event & { message: string; reply?: ControlReply; element?: Element | null; attribute?: string | null; refused?: RefusedItem };
}

export declare class ForcePanel extends EventTarget {
  constructor(options?: ForcePanelOptions);
  /** The panel's description once loaded (then connected). */
  readonly ready: Promise<PanelInfo | null>;
  readonly url: string;
  info: PanelInfo | null;
  /** This page's scope on the server (`ws#12/`), once its items were answered. */
  scope: string | null;
  /** Sends control lines; resolves once every line is answered. */
  send(text: string): Promise<ControlReply>;
  /** Closes the connection for good. */
  close(): void;
  addEventListener<K extends keyof ForcePanelEventMap>(
    type: K,
    listener: (this: ForcePanel, event: ForcePanelEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void;
}

declare global {
  /** The events forcepanel.js dispatches on elements (they bubble to the document). */
  interface ForcePanelElementEventMap {
    forcetouchstart: ForceTouchEvent;
    forcetouchmove: ForceTouchEvent;
    forcetouchend: ForceTouchEvent;
    forcetouchcancel: ForceTouchEvent;
    peek: ForcePanelEvent;
    pop: ForcePanelEvent;
    peekcancel: ForcePanelEvent;
    peekactionskept: ForcePanelEvent;
    quickactions: ForcePanelEvent;
    longpress: ForcePanelEvent;
    livephoto: ForcePanelEvent;
    livephotoend: ForcePanelEvent;
    editmenu: ForcePanelEvent;
  }
  interface HTMLElementEventMap extends ForcePanelElementEventMap {}
  interface DocumentEventMap extends ForcePanelElementEventMap {}
}
