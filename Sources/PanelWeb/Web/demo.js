// The forcepanel.js demo: peekable message rows and home-screen icons with
// quick actions, driven only by the library's DOM events.
import { ForcePanel } from "/forcepanel.js";

const panel = new ForcePanel();
window.forcePanel = panel;

const $ = (s) => document.querySelector(s);
const connection = $("#connection");
panel.addEventListener("open", () => { connection.textContent = "live"; connection.className = "on"; });
// Closed: the reason the server gave (1000 "stream ended"), kept while
// the library tries again.
panel.addEventListener("close", (e) => {
  if (e.code === 1000) connection.textContent = e.reason || "closed";
  else if (connection.className !== "off") connection.textContent = "reconnecting";
  connection.className = "off";
});
panel.addEventListener("error", (e) => log(`panel: ${e.message}`));

const history = [];
function log(text) {
  history.unshift(text);
  history.length = Math.min(history.length, 6);
  $("#log").innerHTML = history.map((t) => `<li>${escape(t)}</li>`).join("");
}
function escape(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// Pressing: the row or icon shades; past hint the page blurs toward the
// preview (the peek transition), as iOS does.
const dim = $("#dim");
let openedBy = null;
document.addEventListener("forcetouchstart", (e) => {
  hideMenu();
  e.target.closest(".row, .icon")?.classList.add("pressed");
});
document.addEventListener("forcetouchmove", (e) => {
  const blur = e.stage === "hint" ? e.progress : e.stage === "none" ? 0 : 1;
  dim.style.backdropFilter = `blur(${(blur * 6).toFixed(1)}px)`;
  dim.style.background = `rgba(0,0,0,${(blur * 0.15).toFixed(3)})`;
});
for (const type of ["forcetouchend", "forcetouchcancel"]) {
  document.addEventListener(type, (e) => {
    e.target.closest(".row, .icon")?.classList.remove("pressed");
    if ($("#preview").hidden) resetDim();
    // A demo has no back button: lifting the finger that opened a message
    // returns to the list.
    if (e.touchId === openedBy) {
      $("#opened").hidden = true;
      openedBy = null;
    }
  });
}
function resetDim() {
  dim.style.backdropFilter = "blur(0px)";
  dim.style.background = "rgba(0,0,0,0)";
}

// Message rows: peek shows the message, pop opens it, swiping up while
// peeking shows its quick actions.
const preview = $("#preview");
document.addEventListener("peek", (e) => {
  const row = e.target.closest(".row");
  if (!row) return;
  preview.querySelector("h2").textContent = row.querySelector("b").textContent + ": " + row.querySelector("span").textContent;
  preview.querySelector("p").textContent = row.querySelector("p").textContent;
  preview.querySelector(".actions").innerHTML = "";
  preview.hidden = false;
  log(`peek ${row.id} (force ${e.force.toFixed(2)})`);
});
document.addEventListener("pop", (e) => {
  const row = e.target.closest(".row");
  if (!row) return;
  preview.hidden = true;
  resetDim();
  const opened = $("#opened");
  opened.querySelector("h2").textContent = row.querySelector("b").textContent + ": " + row.querySelector("span").textContent;
  opened.querySelector("p").textContent = row.querySelector("p").textContent;
  opened.hidden = false;
  openedBy = e.touchId;
  log(`pop ${row.id} (force ${e.force.toFixed(2)})`);
});
document.addEventListener("peekcancel", (e) => {
  preview.hidden = true;
  resetDim();
  log(`peek cancelled ${e.item}`);
});
document.addEventListener("peekactionskept", (e) => log(`${e.item}: choose an action`));

// Quick actions: under the preview when they come from a peek; beside the
// item (the side and alignment the panel chose) from a press or a long press.
function showActions(e) {
  const items = e.actions.map((a) => `<li>${escape(a.title)}${a.subtitle ? `<small>${escape(a.subtitle)}</small>` : ""}</li>`).join("");
  if (e.from === "peek") {
    preview.querySelector(".actions").innerHTML = items;
  } else {
    const menu = $("#menu");
    menu.innerHTML = items;
    menu.hidden = false;
    const r = e.target.getBoundingClientRect();
    const m = menu.getBoundingClientRect();
    const left = e.align === "left" ? r.left : e.align === "right" ? r.right - m.width : (r.left + r.right - m.width) / 2;
    menu.style.left = `${Math.max(0, Math.min(left, innerWidth - m.width))}px`;
    menu.style.top = `${e.side === "above" ? r.top - m.height - 8 : r.bottom + 8}px`;
  }
  log(`${e.type} ${e.item}: ${e.actions.map((a) => a.title).join(", ")}`);
}
function hideMenu() { $("#menu").hidden = true; }
document.addEventListener("quickactions", showActions);
document.addEventListener("longpress", showActions);

// The Live Photo plays while pressed; the text field offers its edit menu.
document.addEventListener("livephoto", (e) => { e.target.classList.add("playing"); log("live photo"); });
document.addEventListener("livephotoend", (e) => e.target.classList.remove("playing"));
document.addEventListener("editmenu", (e) => log(`edit menu on ${e.item}`));
