/// Views or objects by serial: the engine hands serials out in order and never reuses one.
struct BySerial<Element> {
    private var elements: [Int: Element] = [:]

    subscript(serial: Int) -> Element? {
        get { elements[serial] }
        set { elements[serial] = newValue }
    }

    var count: Int { elements.count }
    var values: Dictionary<Int, Element>.Values { elements.values }
}
