# The suite's lanes, sourced by scripts/test and scripts/flake-hunt: each suite runs in three processes side by side,
# one test at a time in each: the three-minute soak; the tests of devices and of `hal` as a program (umockdev, gpsd
# on a pty, ALSA, the qemu guest); and the rest. The device tests hold beside a CPU hog and beside another process's
# suite (scripts/flake-hunt --lanes), but not beside each other in one process: run with --parallel under
# AddressSanitizer on 2026-11-26, gpsd's client never reported a fix and a umockdev evdev child failed
# (docs/reliability.md). The test bundle is run directly, as `swift test` runs it, so that several can run at once on
# one build folder.
#
#   start_lanes BUNDLE LOGPREFIX [VAR=VALUE...]   starts the lanes in the background, each writing LOGPREFIX.LANE.log
#                                                 and leaving its pid in LOGPREFIX.LANE.pid; the environment is added
lanes=(soak devices logic)
device_modules='^(HALCommandTests|SensorsTests|CameraTests|AudioTests|NMEATests|InputEventsTests|ProgramDevicesTests)\.'
lane_filter() {  # lane_filter LANE: the test bundle's arguments that choose the lane's tests
    case "$1" in
        soak) echo "--filter SoakTests" ;;
        devices) echo "--filter $device_modules --skip SoakTests" ;;
        logic) echo "--skip $device_modules" ;;
    esac
}
start_lanes() {
    local bundle=$1 prefix=$2 lane
    shift 2
    for lane in "${lanes[@]}"; do
        # shellcheck disable=SC2046
        env NO_COLOR=1 "$@" "$bundle" --testing-library swift-testing --no-parallel $(lane_filter "$lane") >"$prefix.$lane.log" 2>&1 &
        echo $! >"$prefix.$lane.pid"
    done
}
