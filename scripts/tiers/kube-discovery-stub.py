#!/usr/bin/env python3
# A stand-in for a Kubernetes API server that answers only discovery (the kinds of
# examples/kubernetes) and 404 for everything else, so that `kubectl apply
# --dry-run=client` can map the manifests to resources on a machine without a cluster.
# Usage: kube-discovery-stub.py PORT
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
DOCS = {
  "/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]},
  "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": [{"name": "batch", "versions": [{"groupVersion": "batch/v1", "version": "v1"}], "preferredVersion": {"groupVersion": "batch/v1", "version": "v1"}}]},
  "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": [{"name": "persistentvolumeclaims", "singularName": "persistentvolumeclaim", "namespaced": True, "kind": "PersistentVolumeClaim", "verbs": ["create", "get", "list", "patch"]}]},
  "/apis/batch/v1": {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "batch/v1", "resources": [{"name": "jobs", "singularName": "job", "namespaced": True, "kind": "Job", "verbs": ["create", "get", "list", "patch"]}]},
}
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        path = self.path.split("?")[0]
        doc = DOCS.get(path)
        code = 200 if doc else 404
        if not doc:
            doc = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404}
        body = json.dumps(doc).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
