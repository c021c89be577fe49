import MilieuJSON
import MilieuProtocol
import Testing

@testable import MilieuEngine

/// `view/tree` with `depth`, `limit` and `cursor` (SPEC §9.11): pages in pre-order that put
/// together give the whole tree, resumed where the cursor says.
@Suite struct TreePagingTests {
    /// /App/A (with A/A1, A/A2 and A/A2/Deep), /App/B: seven views with /App.
    private func graphWithTree() throws -> Graph {
        let graph = try makeGraph()
        try graph.mount(["parent": "/App", "name": "A"])
        try graph.mount(["parent": "/App/A", "name": "A1"])
        try graph.mount(["parent": "/App/A", "name": "A2"])
        try graph.mount(["parent": "/App/A/A2", "name": "Deep"])
        try graph.mount(["parent": "/App", "name": "B"])
        try graph.mount(["parent": "/App/B", "name": "B1"])
        return graph
    }

    /// Every page from `path`, following cursors.
    private func allPages(_ graph: Graph, path: String? = nil, depth: Int? = nil, limit: Int) throws -> [ViewTreePage] {
        var pages = [try graph.treePage(path, depth: depth, limit: limit, cursor: nil)]
        while let cursor = pages.last?.nextCursor { pages.append(try graph.treePage(nil, depth: nil, limit: limit, cursor: cursor)) }
        return pages
    }

    @Test func pagesListTheViewsInPreOrderWithTheirParents() throws {
        let pages = try allPages(try graphWithTree(), limit: 3)
        #expect(pages.map(\.nodes.count) == [3, 3, 1])
        let nodes = pages.flatMap(\.nodes)
        #expect(nodes.map(\.view.path) == ["/App", "/App/A", "/App/A/A1", "/App/A/A2", "/App/A/A2/Deep", "/App/B", "/App/B/B1"])
        #expect(nodes.map(\.parent) == [nil, "/App", "/App/A", "/App/A", "/App/A/A2", "/App", "/App/B"])
        #expect(nodes.allSatisfy { $0.view.children == nil })
        #expect(pages.last?.nextCursor == nil)
    }

    @Test func pagesPutTogetherAreTheWholeTree() throws {
        let graph = try graphWithTree()
        let nodes = try allPages(graph, limit: 2).flatMap(\.nodes)
        #expect(ViewTreePage.tree(of: nodes) == (try graph.tree()))
    }

    @Test func aPageOfASubtreeStaysInsideIt() throws {
        let nodes = try allPages(try graphWithTree(), path: "/App/A", limit: 2).flatMap(\.nodes)
        #expect(nodes.map(\.view.path) == ["/App/A", "/App/A/A1", "/App/A/A2", "/App/A/A2/Deep"])
        #expect(nodes.first?.parent == nil)
    }

    @Test func depthLeavesOutDeeperViewsAndCountsTheChildrenLeftOut() throws {
        let graph = try graphWithTree()
        let nodes = try allPages(graph, depth: 1, limit: 10).flatMap(\.nodes)
        #expect(nodes.map(\.view.path) == ["/App", "/App/A", "/App/B"])
        #expect(nodes.map(\.view.childCount) == [nil, 2, 1])
        let tree = try graph.tree(depth: 1)
        #expect(tree.children?.map(\.path) == ["/App/A", "/App/B"])
        #expect(tree.children?.map(\.childCount) == [2, 1])
        #expect(tree.children?.allSatisfy { $0.children == nil } == true)
        #expect(try graph.tree(depth: 0).childCount == 2)
    }

    @Test func aCursorResumesAfterViewsMountedBeforeIt() throws {
        let graph = try graphWithTree()
        let first = try graph.treePage(nil, depth: nil, limit: 4, cursor: nil)
        try graph.mount(["parent": "/App/A", "name": "A0"])  // after A2 in mount order, so after the cursor
        try graph.mount(["parent": "/App/A/A1", "name": "Seen"])  // before it: already passed
        let rest = try graph.treePage(nil, depth: nil, limit: 10, cursor: first.nextCursor)
        #expect(rest.nodes.map(\.view.path) == ["/App/A/A2/Deep", "/App/A/A0", "/App/B", "/App/B/B1"])
    }

    @Test func aCursorWhoseViewIsGoneIsRefused() throws {
        let graph = try graphWithTree()
        let first = try graph.treePage(nil, depth: nil, limit: 4, cursor: nil)
        try graph.unmount("/App/A/A2")
        #expect(throws: EngineError.self) { try graph.treePage(nil, depth: nil, limit: 4, cursor: first.nextCursor) }
        do {
            _ = try graph.treePage(nil, depth: nil, limit: 4, cursor: first.nextCursor)
        } catch {
            #expect(error.kind == .invalidParams)
            #expect(error.data["field"] == "/cursor")
        }
    }

    @Test(arguments: ["", "x", "t1.2", "t1.2.-1", "t1.2.3.4", "t9999.2.*"])
    func aCursorTheDaemonDidNotGiveIsRefused(cursor: String) throws {
        let graph = try graphWithTree()
        #expect(throws: EngineError.self) { try graph.treePage(nil, depth: nil, limit: 4, cursor: cursor) }
    }

    @Test func aCursorWithAnotherPathOrDepthIsRefused() throws {
        let graph = try graphWithTree()
        let first = try graph.treePage("/App/A", depth: 2, limit: 1, cursor: nil)
        #expect(try graph.treePage("/App/A", depth: 2, limit: 1, cursor: first.nextCursor).nodes.map(\.view.path) == ["/App/A/A1"])
        #expect(throws: EngineError.self) { try graph.treePage("/App", depth: 2, limit: 1, cursor: first.nextCursor) }
        #expect(throws: EngineError.self) { try graph.treePage(nil, depth: 1, limit: 1, cursor: first.nextCursor) }
    }
}
