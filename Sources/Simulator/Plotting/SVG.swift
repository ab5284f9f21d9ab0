import LibC
import HAL

/// A small SVG writer: elements appended as text, with attributes and text escaped.
struct SVG {
    private(set) var body = ""

    /// A number as SVG takes it: two decimals at most (an exponent only past 1e15, where SVG's grammar takes it).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        guard abs(value) < 1e15 else { return String(value) }
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        let text = String(rounded)
        return text.contains("e") ? "0" : text
    }

    mutating func element(_ name: String, _ attributes: [(String, String)], text: String? = nil) {
        body += "<\(name)"
        for (key, value) in attributes { body += " \(key)=\"\(XMLText.escape(value))\"" }
        if let text {
            body += ">\(XMLText.escape(text))</\(name)>\n"
        } else {
            body += "/>\n"
        }
    }

    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1, dash: String? = nil) {
        var attributes = [("x1", Self.number(x1)), ("y1", Self.number(y1)), ("x2", Self.number(x2)), ("y2", Self.number(y2)),
                          ("stroke", stroke), ("stroke-width", Self.number(width))]
        if let dash { attributes.append(("stroke-dasharray", dash)) }
        element("line", attributes)
    }

    mutating func polyline(_ points: [(Double, Double)], stroke: String, width: Double = 1.5) {
        guard points.count > 1 else { return }
        let text = points.map { "\(Self.number($0.0)),\(Self.number($0.1))" }.joined(separator: " ")
        element("polyline", [("points", text), ("fill", "none"), ("stroke", stroke), ("stroke-width", Self.number(width)), ("stroke-linejoin", "round")])
    }

    mutating func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double, fill: String, stroke: String? = nil, opacity: Double? = nil) {
        var attributes = [("x", Self.number(x)), ("y", Self.number(y)), ("width", Self.number(max(0, width))), ("height", Self.number(max(0, height))), ("fill", fill)]
        if let stroke { attributes.append(("stroke", stroke)) }
        if let opacity { attributes.append(("fill-opacity", Self.number(opacity))) }
        element("rect", attributes)
    }

    mutating func circle(_ x: Double, _ y: Double, _ radius: Double, fill: String, stroke: String? = nil, opacity: Double? = nil) {
        var attributes = [("cx", Self.number(x)), ("cy", Self.number(y)), ("r", Self.number(radius)), ("fill", fill)]
        if let stroke { attributes.append(("stroke", stroke)) }
        if let opacity { attributes.append(("fill-opacity", Self.number(opacity))) }
        element("circle", attributes)
    }

    mutating func text(_ x: Double, _ y: Double, _ content: String, size: Double = 11, anchor: String = "start", fill: String = "#222", rotate: Bool = false) {
        var attributes = [("x", Self.number(x)), ("y", Self.number(y)), ("font-size", Self.number(size)), ("text-anchor", anchor), ("fill", fill)]
        if rotate { attributes.append(("transform", "rotate(-90 \(Self.number(x)) \(Self.number(y)))")) }
        element("text", attributes, text: content)
    }

    mutating func group(id: String, _ body: (inout SVG) -> Void) {
        self.body += "<g id=\"\(XMLText.escape(id))\">\n"
        body(&self)
        self.body += "</g>\n"
    }

    /// The whole document, `width` by `height` pixels, on a white background.
    func document(width: Double, height: Double, title: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.number(width))" height="\(Self.number(height))" \
        viewBox="0 0 \(Self.number(width)) \(Self.number(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
        <title>\(XMLText.escape(title))</title>
        <rect x="0" y="0" width="\(Self.number(width))" height="\(Self.number(height))" fill="white"/>
        \(body)</svg>

        """
    }
}

/// A linear map from data to pixels, with "nice" ticks (1, 2 or 5 times a power of ten).
struct Scale {
    var domain: (Double, Double)
    var range: (Double, Double)

    init(domain: (Double, Double), range: (Double, Double)) {
        var (low, high) = domain
        if !(low.isFinite && high.isFinite && (high - low).isFinite) { (low, high) = (0, 1) }
        // A flat series gets a span around it, wide enough to survive rounding at its magnitude.
        if !(high - low > max(1e-12, abs(low) * 1e-9)) {
            let widen = max(0.5, abs(low) * 1e-6)
            (low, high) = (low - widen, high + widen)
        }
        self.domain = (low, high)
        self.range = range
    }

    func callAsFunction(_ value: Double) -> Double {
        range.0 + (value - domain.0) / (domain.1 - domain.0) * (range.1 - range.0)
    }

    /// About `count` ticks inside the domain.
    func ticks(_ count: Int = 5) -> [Double] {
        let span = domain.1 - domain.0
        let raw = span / Double(max(1, count))
        guard raw.isFinite, raw > 0 else { return [] }
        let power = pow10(floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= raw } ?? 10 * power
        var ticks: [Double] = []
        var tick = (domain.0 / step).rounded(.up) * step
        while tick <= domain.1 + step * 1e-9, ticks.count < 50 {
            ticks.append(abs(tick) < step * 1e-9 ? 0 : tick)
            tick += step
        }
        return ticks
    }

    /// A tick's label: as many decimals as the step needs.
    static func label(_ value: Double, step: Double) -> String {
        guard value.isFinite, abs(value) < 1e15, step.isFinite, step > 0 else { return String(value) }
        let decimals = max(0, min(6, Int(-floor(log10(step)))))
        if decimals == 0 { return String(Int(value.rounded())) }
        let factor = pow10(Double(decimals))
        let scaled = Int((abs(value) * factor).rounded())
        let whole = scaled / Int(factor), fraction = String(scaled % Int(factor))
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return "\(sign)\(whole).\(String(repeating: "0", count: decimals - fraction.count))\(fraction)"
    }
}

private func pow10(_ exponent: Double) -> Double {
    var value = 1.0
    let steps = Int(max(-400, min(400, exponent.isFinite ? exponent : 0)))
    if steps >= 0 { for _ in 0..<steps { value *= 10 } } else { for _ in 0..<(-steps) { value /= 10 } }
    return value
}
