// What a program that runs the firmware needs, under one import: every
// module of the firmware (docs/architecture.md).
@_exported import ForceCore
@_exported import PanelCalibration
@_exported import PanelFiles
@_exported import PanelFormats
@_exported import PanelHardware
@_exported import PanelMechanics
@_exported import PanelSimulation
@_exported import PanelStreaming
@_exported import PanelTouch
