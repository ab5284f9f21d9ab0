// `greenhouse`: the sensor HAL's command line, knowing the greenhouse app and the soil-moisture kind.
// `greenhouse run greenhouse`, `greenhouse replay`, `greenhouse info`, `greenhouse record` and the rest work as `hal`'s.
import Greenhouse
import HALCommandLine

await HALCommandLine.main(toolName: "greenhouse", apps: [GreenhouseMonitor.self], kinds: [SoilMoistureSample.kind])
