import HAL
import Testing

@Suite struct ValueTypeTests {
    @Test func timestampsAreInstantsOnNanoseconds() {
        let start = Timestamp(nanoseconds: 1_500_000_000)
        let later = start.advanced(by: .milliseconds(250))
        #expect(later.nanoseconds == 1_750_000_000)
        #expect(start.duration(to: later) == .milliseconds(250))
        #expect(later.description == "1.750000000")
        #expect(Timestamp(nanoseconds: -5).description == "-0.000000005")
    }

    @Test func wholeNanosecondsRoundsDown() {
        #expect(Duration.nanoseconds(-3).wholeNanoseconds == -3)
        #expect(Duration.seconds(2).wholeNanoseconds == 2_000_000_000)
        #expect((Duration.nanoseconds(7) / 2).wholeNanoseconds == 3)
    }

    @Test func expressionScoresPickTheDominantExpression() throws {
        let scores = try #require(ExpressionScores([0.01, 0.0, 0.02, 0.9, 0.03, 0.04, 0.0]))
        #expect(scores.dominant == .happy)
        #expect(scores[.sad] == 0.03)
        #expect(ExpressionScores([0.5]) == nil)
        let peak = ExpressionScores(peak: .surprise, score: 0.7)
        #expect(peak.dominant == .surprise)
        #expect(abs(peak.values.reduce(0, +) - 1) < 1e-12)
        #expect(ExpressionReading.noFace(at: .zero).dominant == nil)
    }

    @Test func readingTimestampCanBeMoved() {
        var reading = Reading.key(KeyEvent(timestamp: Timestamp(nanoseconds: 5), code: 28, state: .press))
        reading.timestamp = Timestamp(nanoseconds: 99)
        #expect(reading.timestamp.nanoseconds == 99)
        #expect(KeyEvent(reading)?.code == 28)
        #expect(MotionSample(reading) == nil)
    }

    @Test func unitsAreStatedPerKind() {
        #expect(DeviceKind.gyroscope.units == "rad/s")
        #expect(DeviceKind.accelerometer.units == "m/s^2")
        #expect(DeviceKind.magnetometer.units == "uT")
        #expect(DeviceKind.app.units == nil)
        #expect(DeviceKind.gyroscope.motionQuantity == .angularVelocity)
        #expect(DeviceKind.speaker.isOutput)
    }

    @Test func monotonicClockMovesForward() {
        let clock = MonotonicClock()
        let first = clock.now
        let second = clock.now
        #expect(second >= first)
        #expect(first.nanoseconds > 0)
    }
}

extension ValueTypeTests {
    @Test func eachKindNamesItsReadingType() {
        #expect(DeviceKind.magnetometer.readingType is MotionSample.Type)
        #expect(DeviceKind.camera.readingType is Frame.Type)
        #expect(DeviceKind.app.readingType is AppEvent.Type)
        #expect(!(DeviceKind.pointer.readingType is KeyEvent.Type))
    }
}

/// Regression tests for inputs the fuzzers found.
@Suite struct FuzzRegressionTests {
    /// `scripts/fuzz` (trace): a fix's `utc` in the year 9999 overflowed 64-bit nanoseconds and trapped.
    @Test func aUTCTimeBeyond2262IsRefusedNotATrap() {
        #expect(UTCTime.parse("9999-12-31T23:59:59Z") == nil)
        #expect(UTCTime.parse("2262-04-11T23:47:16.854775807Z") == Int64.max)
        #expect(UTCTime.parse("2262-04-11T23:47:16.854775808Z") == nil)
        #expect(UTCTime.parse("1600-01-01T00:00:00Z") == nil)
        #expect(UTCTime.parse("2026-11-21T12:00:00Z") != nil)
    }
}

@Suite struct AppEventValueLiteralTests {
    @Test func attributesAreWrittenAsLiterals() {
        let attributes: [String: AppEventValue] = ["prompt": "Which face?", "question": 2, "seconds": 35.1, "on": true]
        #expect(attributes["prompt"] == .string("Which face?"))
        #expect(attributes["question"] == .int(2))
        #expect(attributes["seconds"] == .double(35.1))
        #expect(attributes["on"] == .bool(true))
        #expect(attributes["question"] != .double(2))
    }
}
