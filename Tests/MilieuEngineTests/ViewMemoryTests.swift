import Glibc
import MilieuJSON
import Testing

@testable import MilieuEngine

/// What a mounted view costs in memory: the layout decisions that keep a row of a list small
/// (docs/benchmarks.md, "Memory per view"), each held so that a change that undoes one fails here.
@Suite struct ViewMemoryTests {
    /// A row of a list: its own `@State`, shown in its body.
    private func mountRow(in graph: Graph) throws -> ViewNode {
        try graph.mount(["parent": "/App", "name": "Rows"])
        try graph.mount(["parent": "/App/Rows", "name": "Row", "id": 7, "state": ["n": 1], "body": ["{n}"]])
        return try #require(graph.views["/App/Rows/Row[7]"])
    }

    /// glibc's `malloc_usable_size`, which Swift's Glibc module leaves out (it is in malloc.h).
    private static let usableSize = unsafeBitCast(
        dlsym(dlopen(nil, RTLD_NOW), "malloc_usable_size"), to: (@convention(c) (UnsafeMutableRawPointer?) -> Int).self)

    @Test func aViewFitsInABlockOf208Bytes() throws {
        let node = try mountRow(in: try makeGraph())
        // The usable size of a 208-byte block is 200: the instance, with no padding left to fill.
        #expect(Self.usableSize(Unmanaged.passUnretained(node).toOpaque()) <= 200)
    }

    @Test func aViewThatReadsOnlyItsOwnStateHoldsNoDependencyArray() throws {
        let graph = try makeGraph()
        let node = try mountRow(in: graph)
        #expect(node.dependencies.entries.isEmpty)
        #expect(node.dependencies.readsOwnState(0))
        let commit = try graph.set("/App/Rows/Row[7].n", 2)
        #expect(commit.updates["/App/Rows/Row[7]"] == ["_n"])
    }

    @Test func aChangeTakesAt72BytesInTheHistory() {
        // The diagnostic case is boxed; inline, it made every change 104 bytes.
        #expect(MemoryLayout<Change>.stride <= 72)
    }
}
