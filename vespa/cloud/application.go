package cloud

import (
	"fmt"
	"strings"
)

// ApplicationID names an application instance in Vespa Cloud:
// tenant, application and instance. A zero Instance means "default".
type ApplicationID struct {
	// Tenant is the tenant, as created in the Vespa Cloud console, such as
	// "scoober". Required.
	Tenant string
	// Application is the application's name within the tenant, such as
	// "albums". Required.
	Application string
	// Instance is the instance of the application, such as "default" or a
	// developer's own; "" means "default".
	Instance string
}

// ParseApplicationID parses "tenant.application[.instance]"; a missing
// instance is "default".
func ParseApplicationID(s string) (ApplicationID, error) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return ApplicationID{}, fmt.Errorf("cloud: invalid application %q: want tenant.application[.instance]", s)
	}
	id := ApplicationID{Tenant: parts[0], Application: parts[1]}
	if len(parts) == 3 {
		id.Instance = parts[2]
	}
	if err := id.validate(); err != nil {
		return ApplicationID{}, err
	}
	return id.withDefaults(), nil
}

// String returns "tenant.application.instance", the form Vespa's tools use in
// directory names such as ~/.vespa/<tenant>.<application>.<instance>.
func (id ApplicationID) String() string {
	id = id.withDefaults()
	return id.Tenant + "." + id.Application + "." + id.Instance
}

// SerializedForm returns "tenant:application:instance", the key id that API-key
// signed requests carry in their X-Key-Id header.
func (id ApplicationID) SerializedForm() string {
	id = id.withDefaults()
	return id.Tenant + ":" + id.Application + ":" + id.Instance
}

func (id ApplicationID) withDefaults() ApplicationID {
	if id.Instance == "" {
		id.Instance = "default"
	}
	return id
}

func (id ApplicationID) validate() error {
	for _, p := range []struct{ what, v string }{
		{"tenant", id.Tenant}, {"application", id.Application}, {"instance", id.Instance},
	} {
		if p.v == "" && p.what == "instance" {
			continue
		}
		if !validName(p.v) {
			return fmt.Errorf("cloud: invalid %s name %q: want lowercase letters, digits, '-' and '_'", p.what, p.v)
		}
	}
	return nil
}

// validName accepts the names Vespa Cloud allows for tenants, applications and
// instances (a letter, then letters, digits, '-' or '_'), so that a name can
// be put in a URL path and a file name without escaping.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
		case (r >= '0' && r <= '9') || r == '-' || r == '_':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// Environments of Vespa Cloud zones.
const (
	EnvDev  = "dev"
	EnvPerf = "perf"
	EnvProd = "prod"
)

// DefaultDevZone is the default zone of dev deployments.
var DefaultDevZone = Zone{Environment: EnvDev, Region: "aws-us-east-1c"}

// Zone is an environment and a region, such as dev.aws-us-east-1c.
type Zone struct {
	// Environment is the zone's environment: [EnvDev], [EnvPerf] or
	// [EnvProd] (Vespa Cloud also has test and staging, which only its
	// production pipeline deploys to).
	Environment string
	// Region is the cloud region, such as "aws-us-east-1c" or
	// "gcp-us-central1-f".
	Region string
}

// ParseZone parses "environment.region", such as "dev.aws-us-east-1c".
func ParseZone(s string) (Zone, error) {
	env, region, ok := strings.Cut(s, ".")
	z := Zone{Environment: env, Region: region}
	if !ok || strings.Contains(region, ".") || !validName(env) || !validName(region) {
		return Zone{}, fmt.Errorf("cloud: invalid zone %q: want environment.region, such as dev.aws-us-east-1c", s)
	}
	return z, nil
}

// String returns "environment.region".
func (z Zone) String() string { return z.Environment + "." + z.Region }

// Job returns the name of the deployment job of the zone: "<env>-<region>",
// except that prod is spelled "production-<region>".
func (z Zone) Job() string {
	env := z.Environment
	if env == EnvProd {
		env = "production"
	}
	return env + "-" + z.Region
}

// IsManual reports whether deployments to the zone are made directly (dev and
// perf) rather than through a production submission.
func (z Zone) IsManual() bool { return z.Environment == EnvDev || z.Environment == EnvPerf }

func (z Zone) validate() error {
	if !validName(z.Environment) || !validName(z.Region) {
		return fmt.Errorf("cloud: invalid zone %q", z.String())
	}
	return nil
}
