#if canImport(Glibc)
import Glibc
#endif

/// `milieu`: the interactive REPL for milieud, and its scripting front end.
exit(Launch.run(arguments: Array(CommandLine.arguments.dropFirst())))
