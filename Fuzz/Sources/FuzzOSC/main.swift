import FuzzSupport
import PanelFirmware

// OSC packets as `panelctl listen` gets them from the network: decoded
// strictly; any packet either decodes or is refused with an error.
runFuzzer { data, size in
  _ = try? OSCReader.parse(Array(input(data, size)))
  return 0
}
