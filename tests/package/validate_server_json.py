"""Checks a server.json against the MCP registry's published schema
(draft-07, kept in packaging/server.schema.json) and the rules the
registry applies beyond it: each package's version is the server's, and an
OCI package names its version in its identifier only.
Usage: python3 validate_server_json.py SCHEMA SERVER_JSON"""
import json
import sys

import jsonschema


def main() -> int:
    schema = json.load(open(sys.argv[1]))
    server = json.load(open(sys.argv[2]))
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(server), key=str)
    for e in errors:
        print(f"server.json: {'/'.join(map(str, e.path))}: {e.message}")
    for p in server.get("packages", []):
        if p["registryType"] == "oci":
            if "version" in p or not p["identifier"].endswith(":" + server["version"]):
                errors.append(p)
                print(f"server.json: the OCI package must carry the version in its identifier only: {p}")
        elif p.get("version") != server["version"]:
            errors.append(p)
            print(f"server.json: {p['identifier']} has version {p.get('version')}, the server {server['version']}")
    if not errors:
        kinds = ", ".join(p["registryType"] for p in server["packages"])
        print(f"server.json: valid against {schema.get('$id', sys.argv[1])} ({kinds})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
