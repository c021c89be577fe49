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

    /// The size an instance of `type` asks malloc for, from its class metadata (`InstanceSize`,
    /// after the kind, the superclass, the flags and the address point on a platform without
    /// Objective-C). malloc's usable size is no measure: glibc may hand out a larger free chunk.
    private static func instanceSize(_ type: AnyObject.Type) -> Int {
        Int(unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 24, as: UInt32.self))
    }

    @Test func aViewFitsInABlockOf272Bytes() throws {
        let node = try mountRow(in: try makeGraph())
        // A 272-byte block holds 264 usable bytes: the instance, its row's variable and literals in it.
        #expect(Self.instanceSize(ViewNode.self) <= 264)
        #expect(Self.usableSize(Unmanaged.passUnretained(node).toOpaque()) >= Self.instanceSize(ViewNode.self))
        // Kept in place: the sizes the field order of `ViewNode` pads to 48 and 56 bytes.
        #expect(MemoryLayout<ViewLiterals>.size <= 44)
        #expect(MemoryLayout<ViewVariables>.size <= 52)
    }

    /// An object's owner view is held through a link, not a `weak` reference (which would give
    /// every owning view a side table and slow its reference counting): the link lets go of the
    /// view as a weak reference would, when the view goes.
    @Test func anOwnerLinkLetsGoOfItsViewWhenTheViewGoes() throws {
        let graph = try makeGraph()
        let link = try mountRow(in: graph).ownerLink
        #expect(link.view?.path == "/App/Rows/Row[7]")
        _ = try graph.unmount("/App/Rows/Row[7]")
        #expect(link.view == nil)
    }

    /// An object's owner view, read through the link, is its view while mounted and nil once the
    /// view is gone, though the object is still referred to.
    @Test func anObjectsOwnerViewIsNilOnceTheViewIsGone() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Owner", "state": ["theme": ["$new": ["type": "Theme"]]]])
        let record = try #require(graph.objectsByName.values.first { $0.ownerView?.path == "/App/Owner" })
        #expect(record.ownerView === graph.views["/App/Owner"])
        _ = try graph.unmount("/App/Owner")
        #expect(record.ownerView == nil)
    }

    @Test func literalsInPlaceOrSharedReadTheSameSlots() {
        for count in 0...4 {
            let values = (0..<count).map { JSON.int($0 * 10) }
            let literals = ViewLiterals(values)
            #expect((0..<count).map { literals[$0] } == values)
        }
    }

    @Test func variablesInPlaceGrowReplaceAndShrinkInOrder() throws {
        var variables = ViewVariables(capacity: 1)
        variables.append("a", .input(1))
        #expect(variables.count == 1 && variables.index(of: "a") == 0 && variables.index(of: "b") == nil)
        variables["a"] = .input(2)
        guard case .input(2)? = variables["a"] else { Issue.record("a was not replaced in place"); return }
        variables["b"] = .input(3)
        variables.append("c", .noObject)
        #expect(variables.map(\.name) == ["a", "b", "c"])
        #expect(variables.index(of: "c") == 2)
        variables["b"] = nil
        #expect(variables.map(\.name) == ["a", "c"])
        guard case .input(2) = variables[at: 0].value, case .noObject = variables[at: 1].value else {
            Issue.record("values moved: \(Array(variables))")
            return
        }
        var one = ViewVariables(capacity: 1)
        one.append("x", .input(1))
        one["x"] = nil
        #expect(one.count == 0 && one["x"] == nil && Array(one).isEmpty)
        #expect(ViewVariables(capacity: 3).count == 0)
    }

    @Test func aViewsIDIsReadBackFromItsPath() throws {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "Rows"])
        let ids: [JSON] = [0, -9_223_372_036_854_775_808, 42, true, false, "", "7", "a]b[\"c\\", "ü/\u{1F600}"]
        for id in ids {
            try graph.mount(["parent": "/App/Rows", "name": "Row", "id": ["$literal": id]])
        }
        try graph.mount(["parent": "/App/Rows", "name": "Plain"])
        let rows = try #require(graph.views["/App/Rows"]).children.map { ($0.explicitID, $0) }
        #expect(rows.map(\.0) == ids + [nil])
        for (id, node) in rows {
            #expect(node.hasExplicitID(id))
            #expect(!node.hasExplicitID(id == nil ? 1 : nil))
            #expect(!node.hasExplicitID(id == "7" ? 7 : "7"))
        }
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
