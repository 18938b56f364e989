#!/usr/bin/python3
"""lava/render-device.py DEVICE TYPES_DIR OUT [NAME=VALUE ...]

Renders the device dictionary lava/devices/DEVICE.jinja2 into the device
YAML lava-run reads, the way lava-server renders it for a job: a Jinja2
SandboxedEnvironment with trim_blocks, templates from lava/devices,
lava/device-types and LAVA's own device types (TYPES_DIR, from
lava/device-types.sh), and the job's context plus NAME=VALUE pairs passed in.
Validates the result with LAVA's device schema. Debian's python3: the LAVA
modules are not in other interpreters.
"""
import os
import sys

import jinja2
import jinja2.sandbox
import yaml
from lava_common.schemas.device import validate


def main(argv):
    if len(argv) < 4 or any("=" not in a for a in argv[4:]):
        sys.exit(__doc__)
    device, types, out = argv[1:4]
    here = os.path.dirname(os.path.abspath(__file__))
    context = dict(a.split("=", 1) for a in argv[4:])
    env = jinja2.sandbox.SandboxedEnvironment(
        loader=jinja2.FileSystemLoader(
            [os.path.join(here, "devices"), os.path.join(here, "device-types"), types]),
        trim_blocks=True, autoescape=False)
    try:
        text = env.get_template(device + ".jinja2").render(**context)
        validate(yaml.safe_load(text))
    except Exception as exc:  # every failure is reported the same way
        sys.exit("render-device.py: %s: %s: %s" % (device, type(exc).__name__, exc))
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, out)


if __name__ == "__main__":
    main(sys.argv)
