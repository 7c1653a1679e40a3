#!/usr/bin/python3
"""A stand-in for the Hugging Face Hub on 127.0.0.1, for wgk's Hub client tests.

Serves GET /api/kernels/<org>/<name>/refs (the repo's branches: {"branches": [{"name", "ref", "targetCommit"}], "tags": [],
"converts": []}) and GET /kernels/<org>/<name>/resolve/<rev>/<path> from package folders registered per (repo, commit)
(build/webgpu/<file>, and the card README.md at the root), with branches (v1 ...) pointing at commits; every
answer carries X-Repo-Commit; a 404 carries X-Error-Code (RepoNotFound, RevisionNotFound, EntryNotFound) as
the Hub does; GET /__count answers the number of requests so far (itself not counted). ETags as the Hub sends them: a file kept in git (under LFS_MIN bytes) has ETag = its git blob id
(sha1 of "blob <len>\0" + bytes); an LFS file answers 302 to /__lfs/... with X-Linked-Etag = its SHA-256, and the
storage answer there carries an ETag of its own (an MD5, as a CDN's), which a client must not take. Counts and records
every request. Fault modes (StandIn.mode):
  "404"       every request answers 404 without an error code
  "token"     401 unless "Authorization: Bearer <token>" (StandIn.token)
  "forbidden" every request answers 403 (a gated repo the token cannot see)
  "500x2"     each Hub path answers 500 twice, then normally
  "truncate"  files other than metadata.json announce their length and close after half of it
  "flip"      files other than metadata.json have one byte flipped
  "redirect"  every file answers 302 to http://localhost:<port>/__moved/... (another host name)
  "slow"      sleeps StandIn.delay seconds before answering
  "drop"      each path's first request closes the connection without an answer
  "delay"     sleeps StandIn.delay seconds before each file body (for the two-process test)
  "huge"      files other than metadata.json announce 80 MiB and stream zeros
  "huge-nolen" the same without a Content-Length (the body ends when the connection closes)
  "trickle"   files other than metadata.json arrive at 4 bytes/s

Used in-process (tests/hub/hub_test.py), or as a wrapper around a command:
  standin.py --repo webgpu-kernels/ai.onnx.RotaryEmbedding=PKG_DIR [--repo REPO@v2=PKG_DIR2] -- CMD ARGS...
sets HF_ENDPOINT, HF_HOME and HF_HUB_CACHE (a fresh temp dir) for CMD and exits with its status.
"""
import hashlib, http.server, json, os, shutil, socket, subprocess, sys, tempfile, threading, time

FILES_PREFIX = "/build/webgpu/"
LFS_MIN = 50_000  # files this big are "LFS" files (test.json of RotaryEmbedding is one)


def git_blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def commit_of(text):
    return hashlib.sha1(text.encode()).hexdigest()


class StandIn:
    def __init__(self):
        self.repos = {}      # repo -> {"branches": {name: commit}, "commits": {commit: folder}}
        self.mode = None
        self.token = None
        self.delay = 0.0
        self.requests = []   # (path, authorization header or None)
        self.seen = {}       # path -> times asked
        self.lock = threading.Lock()
        stand = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                stand.handle(self)

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # a client that timed out or gave up closed its end: expected in the fault modes

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def add(self, repo, folder, branch=None, commit=None):
        """Serves folder (a package root holding build/webgpu/) as repo at commit (and branch)."""
        commit = commit or commit_of(repo + ":" + folder)
        r = self.repos.setdefault(repo, {"branches": {}, "commits": {}})
        r["commits"][commit] = folder
        if branch:
            r["branches"][branch] = commit
        return commit

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def count(self):
        with self.lock:
            return len(self.requests)

    def reset(self, mode=None):
        with self.lock:
            self.requests.clear()
            self.seen.clear()
        self.mode = mode

    def handle(self, h):
        path = h.path.split("?")[0]
        if path == "/__count":  # for a test to read: the requests so far (this one not counted)
            return self.answer(h, 200, str(self.count()).encode())
        auth = h.headers.get("Authorization")
        with self.lock:
            self.requests.append((path, auth))
            n = self.seen[path] = self.seen.get(path, 0) + 1
        mode = self.mode
        from_storage = path.startswith("/__lfs/")
        if from_storage:
            path = path[len("/__lfs"):]
        if path.startswith("/__moved/"):
            path = path[len("/__moved"):]
        elif mode == "redirect" and path.startswith("/kernels/"):
            return self.answer(h, 302, b"", {"Location": f"http://localhost:{self.port}/__moved{path}"})
        if mode == "slow":
            time.sleep(self.delay)
        if mode == "drop" and n == 1:
            h.close_connection = True
            h.connection.shutdown(socket.SHUT_RDWR)
            return
        if mode == "404":
            return self.answer(h, 404, b"Not Found")
        if mode == "500x2" and n <= 2 and not from_storage:  # the Hub fails, not the storage it redirects to
            return self.answer(h, 500, b"Internal Error")
        if mode == "token" and auth != f"Bearer {self.token}":
            return self.answer(h, 401, b"Unauthorized")
        if mode == "forbidden":
            return self.answer(h, 403, b"Forbidden")
        parts = path.split("/")
        # "", "api", "kernels", org, name, "refs": the repo's branches, as huggingface_hub's list_repo_refs reads them
        if len(parts) == 6 and parts[:3] == ["", "api", "kernels"] and parts[5] == "refs":
            r = self.repos.get(parts[3] + "/" + parts[4])
            if not r:
                return self.answer(h, 404, b"Repository not found", {"X-Error-Code": "RepoNotFound"})
            refs = {"branches": [{"name": b, "ref": "refs/heads/" + b, "targetCommit": c}
                                 for b, c in sorted(r["branches"].items())], "tags": [], "converts": []}
            return self.answer(h, 200, json.dumps(refs).encode(), {"Content-Type": "application/json"})
        # "", "kernels", org, name, "resolve", rev, "build", "webgpu", file...
        if len(parts) < 7 or parts[1] != "kernels" or parts[4] != "resolve":
            return self.answer(h, 404, b"no such route")
        repo, rev, in_repo = parts[2] + "/" + parts[3], parts[5], "/".join(parts[6:])
        rel = in_repo[len("build/webgpu/"):] if in_repo.startswith("build/webgpu/") else None
        r = self.repos.get(repo)
        if not r:
            return self.answer(h, 404, b"Repository not found", {"X-Error-Code": "RepoNotFound"})
        commit = r["branches"].get(rev, rev if rev in r["commits"] else None)
        if not commit:
            return self.answer(h, 404, b"Revision not found", {"X-Error-Code": "RevisionNotFound"})
        file = os.path.join(r["commits"][commit], in_repo)
        if ".." in in_repo.split("/") or not os.path.isfile(file):
            return self.answer(h, 404, b"Entry not found", {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": commit})
        with open(file, "rb") as f:
            body = f.read()
        if len(body) >= LFS_MIN and not from_storage:
            return self.answer(h, 302, b"", {"X-Repo-Commit": commit, "Location": "/__lfs" + h.path,
                                              "X-Linked-Etag": '"' + hashlib.sha256(body).hexdigest() + '"',
                                              "ETag": '"' + git_blob_id(b"pointer") + '"'})
        etag = hashlib.md5(body).hexdigest() if from_storage else git_blob_id(body)
        headers = {"X-Repo-Commit": commit, "ETag": '"' + etag + '"'}
        if rel is not None and rel != "metadata.json":
            if mode == "delay":
                time.sleep(self.delay)
            if mode == "flip" and body:
                body = bytes([body[0] ^ 0x20]) + body[1:]
            if mode in ("huge", "huge-nolen", "trickle"):
                return self.stream(h, mode, body, headers)
            if mode == "truncate":
                h.send_response(200)
                h.send_header("Content-Length", str(len(body)))
                for k, v in headers.items():
                    h.send_header(k, v)
                h.end_headers()
                h.wfile.write(body[: len(body) // 2])
                h.wfile.flush()
                h.close_connection = True
                h.connection.shutdown(socket.SHUT_RDWR)
                return
        self.answer(h, 200, body, headers)

    @staticmethod
    def stream(h, mode, body, headers):
        big = 80 << 20
        h.send_response(200)
        if mode != "huge-nolen":
            h.send_header("Content-Length", str(big if mode == "huge" else len(body)))
        else:
            h.send_header("Connection", "close")
        for k, v in headers.items():
            h.send_header(k, v)
        h.end_headers()
        h.close_connection = True
        try:
            if mode == "trickle":
                for i in range(0, len(body), 4):
                    h.wfile.write(body[i:i + 4])
                    h.wfile.flush()
                    time.sleep(1)
            else:
                chunk = bytes(1 << 20)
                for _ in range(big >> 20):
                    h.wfile.write(chunk)
            h.wfile.flush()
        except OSError:
            pass  # the client gave up: what the test wants
        try:
            h.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    @staticmethod
    def answer(h, status, body, headers=None):
        h.send_response(status)
        h.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(body)


def main(argv):
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    cut = argv.index("--")
    opts, cmd = argv[:cut], argv[cut + 1:]
    s = StandIn()
    for i, a in enumerate(opts):
        if a == "--repo":
            repo, folder = opts[i + 1].split("=", 1)
            repo, _, branch = repo.partition("@")
            s.add(repo, folder, branch=branch or "v1")
    s.start()
    tmp = tempfile.mkdtemp(prefix="wgk-standin-")
    env = dict(os.environ, HF_ENDPOINT=s.url, HF_HOME=os.path.join(tmp, "hf"), HF_HUB_CACHE=os.path.join(tmp, "hf", "hub"),
               HOME=tmp, WGK_BUNDLED_KERNELS="0", WGK_HUB_BACKOFF_MS="10", WGK_HUB_TIMEOUT="5",
               WGK_STANDIN_COMMITS=",".join(c for r in s.repos.values() for c in r["commits"]))
    for k in ("HF_TOKEN", "HF_HUB_OFFLINE", "WGK_KERNEL_PATH"):
        env.pop(k, None)
    try:
        rc = subprocess.run(cmd, env=env).returncode
    finally:
        s.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"standin: {s.count()} requests", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
