// A classic page's script: forcepanel.global.js's exports are the global `forcepanel`.
/// <reference path="./forcepanel.d.ts" />
const panel = new forcepanel.ForcePanel({ compat: true, regions: false });
panel.send("force_touch off").then((r) => console.log(r.control, r.line));
