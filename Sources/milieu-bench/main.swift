import Foundation
import MilieuEngine

/// `milieu-bench engine`: the engine's invalidation scaling and mount cost.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "engine", nil:
    let rows = try EngineBenchmark.run(sizes: [1_000, 10_000, 100_000], writes: 10_000)
    print("style             views   mount(s)  write(µs)  write-all(s)")
    for row in rows {
        print(
            row.style.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0),
            String(row.views).leftPadded(7), String(format: "%9.3f", row.mountSeconds),
            String(format: "%10.2f", row.writeMicros), String(format: "%12.3f", row.broadcastSeconds))
    }
default:
    print("usage: milieu-bench [engine]")
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
