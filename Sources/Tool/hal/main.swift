// The `hal` tool: the package's command line with the five shipped apps.
import DemoApps
import HALCommandLine

await HALCommandLine.main(apps: ShippedApps.all)
