@preconcurrency import CReadline

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The glue to GNU readline's callback interface, which lets milieu's own poll loop wait
/// on the terminal and the daemon at once. It prints above the prompt without disturbing
/// the half-typed line, keeps the history, and wires completion and the syntax hints.
///
/// Threading: readline is one set of globals; a single editor exists, used from the main
/// thread only, and readline's C callbacks reach it through `activeEditor`.
final class LineEditor {
    /// Candidates for the word being completed; `terminal` ones end a word (a space follows).
    struct Candidate {
        let text: String
        let terminal: Bool
    }

    /// What Tab offers: candidates, or readline's own file name completion.
    enum Completion {
        case candidates([Candidate])
        case fileNames
    }

    private let history: HistoryFile
    /// Whether a command the user entered goes into the history (one that writes a secret does not).
    var keepsInHistory: (String) -> Bool = { _ in true }
    /// Called with each line entered; nil on Ctrl-D at an empty line.
    private let onLine: (String?) -> Void
    /// Given the line before the word and the word, what Tab offers.
    var completer: (String, String) -> Completion = { _, _ in .candidates([]) }
    /// Given the whole line, the dim text to show after it; hints need colour.
    var hinter: ((String) -> String?)?

    private var prompt: String
    private var installed = false
    /// True while the line handler runs: readline has let go of the terminal, so output
    /// goes straight out.
    private var inHandler = false
    private var hint = HintState()
    private var candidates: [String] = []
    private var nextCandidate = 0

    init(prompt: String, history: HistoryFile, onLine: @escaping (String?) -> Void) {
        self.prompt = prompt
        self.history = history
        self.onLine = onLine
    }

    /// Sets readline up and shows the prompt.
    func start() {
        activeEditor = self
        rl_readline_name = UnsafePointer(strdup("milieu"))
        rl_catch_signals = 0
        rl_catch_sigwinch = 0
        rl_change_environment = 0
        rl_completer_word_break_characters = UnsafePointer(strdup(" \t\n"))
        rl_attempted_completion_function = attemptCompletion
        rl_completion_display_matches_hook = displayMatches
        // Listing at the first Tab suits exploring a graph; ~/.inputrc, read at install, may say otherwise.
        rl_variable_bind("show-all-if-ambiguous", "on")
        rl_bind_key(13, acceptLine)
        rl_bind_key(10, acceptLine)
        history.load()
        rl_callback_handler_install(prompt, lineHandler)
        // Only now: with a redisplay function of its own in place, readline's first
        // initialization takes the terminal for a dumb one (no wrapping, no clearing).
        rl_redisplay_function = redisplayWithHint
        installed = true
    }

    /// Puts the terminal back as it was and saves the history.
    func stop() {
        if installed { rl_callback_handler_remove() }
        installed = false
        history.trim()
    }

    /// Reads the character waiting on standard input; may call the line handler.
    func readCharacter() { rl_callback_read_char() }

    /// Changes the prompt, redrawing the line under it.
    func setPrompt(_ newPrompt: String) {
        guard newPrompt != prompt else { return }
        prompt = newPrompt
        guard installed else { return }
        rl_set_prompt(prompt)
        // Inside the line handler readline draws the new prompt itself when the handler returns.
        guard !inHandler else { return }
        rl_clear_visible_line()
        hint.visible = false
        rl_forced_update_display()
    }

    /// Runs `body`, which prints whole lines, so that its output appears above the prompt
    /// and the half-typed line is drawn again below it, untouched.
    func printAbove(_ body: () -> Void) {
        guard installed, !inHandler else { return body() }
        rl_clear_visible_line()
        hint.visible = false
        fflush(stdout)
        body()
        rl_forced_update_display()
    }

    /// Ctrl-C: abandon the line, show a fresh prompt, stay.
    func interrupt() {
        guard installed, !inHandler else { return }
        rl_callback_sigcleanup()
        eraseHint()
        rl_point = rl_end
        rl_redisplay()
        fputs("^C\n", stdout)
        rl_free_line_state()
        using_history()
        rl_replace_line("", 1)
        rl_on_new_line()
        rl_redisplay()
    }

    /// Ctrl-Z: gives the terminal back as it was, runs `stop` (which returns once the
    /// process runs again, after `fg`), and takes the terminal again.
    func suspend(_ stop: () -> Void) {
        guard installed else { return stop() }
        eraseHint()
        rl_deprep_terminal()
        stop()
        rl_prep_terminal(1)
        fputs("\n", stdout)
        rl_forced_update_display()
    }

    /// The terminal changed size.
    func resize() {
        guard installed else { return }
        rl_resize_terminal()
    }

    // MARK: Called from readline

    fileprivate func handle(_ pointer: UnsafeMutablePointer<CChar>?) {
        inHandler = true
        defer {
            inHandler = false
            hint.suppressed = false
        }
        guard let pointer else {
            fputs("\n", stdout)
            onLine(nil)
            return
        }
        let line = String(cString: pointer)
        free(pointer)
        onLine(line)
    }

    /// Puts a whole command in the history (its lines joined, when it took several), unless
    /// `keepsInHistory` refuses it.
    func remember(_ command: String) {
        if keepsInHistory(command) { history.add(command) }
    }

    /// Ends the line without leaving a hint on screen beside it.
    fileprivate func accept() {
        hint.suppressed = true
        eraseHint()
    }

    fileprivate func redisplay() {
        rl_redisplay()
        // No hints while searching the history: the line shown is a match, not typing.
        let searching = rl_readline_state & UInt(RL_STATE_ISEARCH | RL_STATE_NSEARCH) != 0
        guard let hinter, !hint.suppressed, !searching else { return }
        if rl_point != rl_end {
            eraseHint()
            return
        }
        if hint.visible { fputs("\u{1B}[K", stdout) }
        hint.visible = false
        let line = String(cString: rl_line_buffer)
        guard let text = hinter(line), !text.isEmpty, text.allSatisfy(\.isASCII) else { return }
        var rows: Int32 = 0
        var columns: Int32 = 0
        rl_get_screen_size(&rows, &columns)
        guard visibleWidth(prompt) + line.count + text.count < Int(columns) else { return }
        fputs("\u{1B}[2m\(text)\u{1B}[0m\u{1B}[\(text.count)D", stdout)
        fflush(stdout)
        hint.visible = true
    }

    /// Clears a hint drawn after the end of the line, wherever the cursor is on it.
    private func eraseHint() {
        guard hint.visible else { return }
        let right = Int(rl_end - rl_point)
        fputs(right > 0 ? "\u{1B}7\u{1B}[\(right)C\u{1B}[K\u{1B}8" : "\u{1B}[K", stdout)
        fflush(stdout)
        hint.visible = false
    }

    fileprivate func complete(_ text: UnsafePointer<CChar>?, start: Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        rl_attempted_completion_over = 1
        let word = text.map { String(cString: $0) } ?? ""
        let before = String(decoding: UnsafeRawBufferPointer(start: rl_line_buffer, count: Int(start)), as: UTF8.self)
        switch completer(before, word) {
        case .fileNames:
            rl_attempted_completion_over = 0
            return nil
        case .candidates(let found):
            rl_completion_append_character = found.count == 1 && found[0].terminal ? 32 : 0
            candidates = found.map(\.text)
            nextCandidate = 0
            return rl_completion_matches(text, candidateGenerator)
        }
    }

    fileprivate func generate(restart: Bool) -> UnsafeMutablePointer<CChar>? {
        if restart { nextCandidate = 0 }
        guard nextCandidate < candidates.count else { return nil }
        defer { nextCandidate += 1 }
        return strdup(candidates[nextCandidate])
    }

    /// Lists candidates by their last segment (`email`, not the whole key path).
    fileprivate func display(_ matches: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, count: Int32) {
        guard let matches, count > 0 else { return }
        var shortened: [UnsafeMutablePointer<CChar>?] = [nil]
        var longest = 0
        for index in 1...Int(count) {
            let full = matches[index].map { String(cString: $0) } ?? ""
            let tail = Self.lastSegment(full)
            longest = max(longest, tail.count)
            shortened.append(strdup(tail))
        }
        shortened.append(nil)
        eraseHint()
        rl_crlf()
        shortened.withUnsafeMutableBufferPointer { rl_display_match_list($0.baseAddress, count, Int32(longest)) }
        for pointer in shortened { free(pointer) }
        rl_forced_update_display()
    }

    /// `email` for `login.email`, `LoginView1` for `/App/Container/LoginView1`.
    static func lastSegment(_ candidate: String) -> String {
        let separators = PathSyntax.topLevelIndices(of: ".", in: candidate) + PathSyntax.topLevelIndices(of: "/", in: candidate)
        guard let last = separators.max(), candidate.index(after: last) < candidate.endIndex else { return candidate }
        return String(candidate[candidate.index(after: last)...])
    }

    /// The terminal's width in columns, as readline knows it; nil when it does not.
    static func screenColumns() -> Int? {
        var rows: Int32 = 0
        var columns: Int32 = 0
        rl_get_screen_size(&rows, &columns)
        return columns > 0 ? Int(columns) : nil
    }

    /// How many columns `text` takes, leaving out escape sequences between \u{01} and \u{02}.
    private func visibleWidth(_ text: String) -> Int {
        var width = 0
        var hidden = false
        for scalar in text.unicodeScalars {
            if scalar == "\u{01}" { hidden = true } else if scalar == "\u{02}" { hidden = false } else if !hidden { width += 1 }
        }
        return width
    }
}

/// Whether a syntax hint is on screen, and whether one may be drawn.
private struct HintState {
    var visible = false
    /// Set while a line is being accepted, so that no hint is drawn beside it.
    var suppressed = false
}

/// The one editor readline's callbacks reach; set by `start`.
nonisolated(unsafe) private var activeEditor: LineEditor?

private let lineHandler: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void = { activeEditor?.handle($0) }

private let redisplayWithHint: @convention(c) () -> Void = {
    if let editor = activeEditor { editor.redisplay() } else { rl_redisplay() }
}

private let acceptLine: @convention(c) (Int32, Int32) -> Int32 = { count, key in
    activeEditor?.accept()
    return rl_newline(count, key)
}

private let attemptCompletion: @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? =
    {
        text, start, _ in activeEditor?.complete(text, start: start)
    }

private let candidateGenerator: @convention(c) (UnsafePointer<CChar>?, Int32) -> UnsafeMutablePointer<CChar>? = {
    _, state in activeEditor?.generate(restart: state == 0)
}

private let displayMatches: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, Int32, Int32) -> Void = {
    matches, count, _ in activeEditor?.display(matches, count: count)
}
