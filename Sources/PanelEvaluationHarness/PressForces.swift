import PanelFormats

/// The forces the standard scenarios press with on one board, from its own
/// thresholds at its sensitivity, with margins either side so that what each
/// press should do is not in doubt: a tap stays well below peek, a peek
/// press holds well between peek and pop, a pop press goes well past pop.
package struct PressForces: Sendable, Equatable {
  /// Where the board enters each stage, N.
  package var touchOn_n: Double
  package var peekOn_n: Double
  package var popOn_n: Double
  /// The most the board reports, N.
  package var max_n: Double
  package var tap: ClosedRange<Double>
  package var peek: ClosedRange<Double>
  package var pop: ClosedRange<Double>

  package init(board: Board) {
    let s = board.interaction
    let unit = s.averageTouch_n * s.sensitivity.factor
    touchOn_n = board.detection.touchOn_n
    peekOn_n = s.peek * unit
    popOn_n = s.pop * unit
    max_n = s.maxForce * s.averageTouch_n
    let tapHigh = max(0.7 * peekOn_n, 4 * touchOn_n)
    tap = max(3 * touchOn_n, 0.25)...max(min(0.8, tapHigh), max(3 * touchOn_n, 0.25))
    // Between peek and pop: above peek by a third, below pop's exit level.
    let peekLow = 1.3 * peekOn_n
    peek = peekLow...max(peekLow, min(0.75 * popOn_n, popOn_n * s.exitRatio * 0.9))
    let popLow = 1.15 * popOn_n
    pop = popLow...max(popLow, min(1.35 * popOn_n, 0.95 * max_n))
  }
}
