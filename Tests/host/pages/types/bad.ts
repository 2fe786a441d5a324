// A mistake the declarations catch: send() takes text.
import { ForcePanel } from "./forcepanel.js";
new ForcePanel().send(3);
