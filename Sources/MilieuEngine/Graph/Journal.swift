import MilieuJSON

/// The undo log of the transaction in progress: every change to the graph records how
/// to take it back, so that a failing operation leaves no trace (rule 14). A stored property's
/// write is the exception: the transaction keeps each written place's value from before it
/// (`TouchedPlaces`), which `Graph.rollBack` puts back.
///
/// Steps are values, not closures: recording one allocates nothing, and a committed
/// transaction drops its log without releasing a closure context per change.
struct Journal {
    private var undo: [UndoStep] = []

    mutating func record(_ step: UndoStep) { undo.append(step) }

    /// Hands over the undo steps, newest last, leaving the journal empty. The caller runs them
    /// in reverse outside any access to the journal: they reuse the graph's mutators, which record.
    mutating func takeUndoSteps() -> [UndoStep] {
        defer { undo.removeAllKeepingCapacity() }
        return undo
    }

    mutating func discard() { undo.removeAllKeepingCapacity() }
}

/// One change of the transaction in progress, with what it replaced.
enum UndoStep {
    /// A view was put into the tree.
    case linked(ViewNode)
    /// A view was taken out of the tree; it went after `previous`.
    case removed(ViewNode, previous: ViewNode?)
    /// A view moved among its siblings; it was after `previous`.
    case moved(ViewNode, previous: ViewNode?)
    case variable(ViewNode, name: String, old: ViewVariable?)
    case body(ViewNode, old: BodyLines, evaluations: UInt32, lastEvaluated: UInt32)
    case viewVersion(ViewNode, old: Version)
    /// A view's dependencies were replaced; `old` is what it read before.
    case dependencies(ViewNode, old: DependencySet)
    case provides(ViewNode, EnvironmentLayer, Provided)
    case passedBinding(ViewNode, name: String, old: Bound?)
    case boundStates(ViewNode, old: UInt64)
    case placedTransforms(ViewNode, old: [PlacedTransform], results: [String: JSON])
    case activeLinks(ViewNode, old: Set<String>)
    case controls(ViewNode, old: [ViewControl])
    case objectCreated(ObjectRecord)
    case objectDestroyed(ObjectRecord)
    case holders(ObjectRecord, old: Int)
    case ownership(ObjectRecord, owner: String?, view: ViewNode?, variable: String?)
    case computed(ObjectRecord, index: Int, reads: [Int], old: JSON)
    case objectVersion(ObjectRecord, old: Version)
    case madeObjects(ObjectRecord, old: [ObjectSerial])
    case forwarders(of: ObjectSerial, old: [ObjectSerial]?)
}

extension Graph {
    /// Takes back one step. Steps run newest first, so each finds the graph as it left it.
    func undo(_ step: UndoStep) {
        switch step {
        case .linked(let node):
            unlink(node)
            // A node born in this transaction records no undo for its dependencies: they go with it.
            if isBornInThisTransaction(node) { reindex(node, to: DependencySet()) }
        case .removed(let node, let previous): try? link(node, after: previous, atEnd: false)
        case .moved(let node, let previous): move(node, after: previous)
        case .variable(let node, let name, let old): node.variables[name] = old
        case .body(let node, let old, let evaluations, let lastEvaluated):
            (node.body, node.evaluations, node.lastEvaluatedBits) = (old, evaluations, lastEvaluated)
        case .viewVersion(let node, let old): node.version = old
        case .dependencies(let node, let old): reindex(node, to: old)
        case .provides(let node, let layer, let provided): node[layer] = provided
        case .passedBinding(let node, let name, let old): node.passedBindings[name] = old
        case .boundStates(let node, let old): node.boundStates = old
        case .placedTransforms(let node, let old, let results): (node.placedTransforms, node.transformResults) = (old, results)
        case .activeLinks(let node, let old): node.activeLinks = old
        case .controls(let node, let old): node.controls = old
        case .objectCreated(let record):
            objects[record.serial] = nil
            objectsByName[record.name] = nil
        case .objectDestroyed(let record):
            objects[record.serial] = record
            objectsByName[record.name] = record
        case .holders(let record, let old): record.holders = old
        case .ownership(let record, let owner, let view, let variable):
            (record.owner, record.ownerView, record.ownerVariable) = (owner, view, variable)
        case .computed(let record, let index, let reads, let old):
            record.computedReads[index] = reads
            record.values[record.type.storedCount + index] = old
        case .objectVersion(let record, let old): record.version = old
        case .madeObjects(let record, let old): record.madeObjects = old
        case .forwarders(let id, let old): forwarders[id] = old
        }
    }
}
