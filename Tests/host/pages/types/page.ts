// A module page: forcepanel.js imported, its events and answers typed.
import { ForcePanel, ForceTouchEvent, ControlReply } from "./forcepanel.js";
const panel = new ForcePanel({ compat: { pointer: true }, panelRect: () => ({ left: 0, top: 0, width: 10, height: 10 }) });
panel.addEventListener("error", (e) => console.log(e.message, e.attribute));
document.addEventListener("peek", (e) => console.log(e.item, e.actions.length, e.force));
document.addEventListener("forcetouchmove", (e: ForceTouchEvent) => e.getCoalescedEvents().map((c) => c.pressure));
const reply: Promise<ControlReply> = panel.send("sensitivity firm");
reply.then((r) => r.replies.map((x) => x.control));
