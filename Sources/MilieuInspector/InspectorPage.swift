/// The inspector's one page: `Page/inspector.html`, hand-written HTML, CSS and JavaScript with
/// no framework and nothing loaded from elsewhere, embedded in the binary at build time.
enum InspectorPage {
    static var html: [UInt8] { PackageResources.inspector_html }
}
