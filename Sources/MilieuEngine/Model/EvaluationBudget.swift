/// The expression steps one request may spend across all of its evaluations (SPEC §9.3.5): every
/// getter and action it runs debits the same budget, so that a transaction of many small writes,
/// each re-evaluating an expensive getter, cannot hold the loop for seconds while each evaluation
/// stays under its own `ExpressionLimits.maxSteps`. The graph renews it for each transaction; once
/// it is spent, every further evaluation fails at its first step and the transaction is refused.
final class EvaluationBudget {
    let perRequest: Int
    private(set) var remaining: Int

    init(perRequest: Int) {
        self.perRequest = perRequest
        remaining = perRequest
    }

    /// Whether the request has spent more than its budget.
    var isExceeded: Bool { remaining < 0 }

    func renew() { remaining = perRequest }

    /// Debits `cost` steps; false once the request's budget is spent.
    func spend(_ cost: Int) -> Bool {
        remaining -= cost
        return remaining >= 0
    }
}
