/* One way to name a kernel: "org/name", "name", with "@vN" or "@<commit>", held against the version and revision
 * given (hub.h, hub_split_ref). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hub/hub_internal.h"

/* The rules, in order: the first one ref breaks; none broken: the suffix's version or commit taken into ref. */
static hub_ref_problem check_ref(hub_ref *ref) {
  const char *suf = ref->suffix;
  char *end = NULL;
  bool by_version = suf && suf[0] == 'v' && suf[1] >= '1' && suf[1] <= '9';
  if (by_version) ref->suffix_version = strtol(suf + 1, &end, 10);
  if (ref->version < 0 || ref->version > 1000000) return HUB_REF_VERSION_OPTION;
  if (ref->revision && !hub_is_commit(ref->revision)) return HUB_REF_REVISION_OPTION;
  if (!suf) return HUB_REF_OK;
  if (by_version && (*end || ref->suffix_version > 1000000)) return HUB_REF_SUFFIX_VERSION;
  if (by_version && ref->revision) return HUB_REF_VERSION_AND_REVISION;
  if (by_version && ref->version > 0 && ref->version != ref->suffix_version) return HUB_REF_VERSIONS_DIFFER;
  if (by_version) {
    ref->version = (int)ref->suffix_version;
    return HUB_REF_OK;
  }
  if (!hub_is_commit(suf)) return HUB_REF_SUFFIX;
  if (ref->version > 0) return HUB_REF_COMMIT_AND_VERSION;
  if (ref->revision && strcasecmp(ref->revision, suf) != 0) return HUB_REF_COMMITS_DIFFER;
  for (int i = 0; i < 41; i++) ref->rev[i] = (char)tolower((unsigned char)suf[i]);
  ref->revision = ref->rev;
  return HUB_REF_OK;
}

hub_ref_problem hub_split_ref(const char *spec, bool read_suffix, hub_ref *ref) {
  const char *at = read_suffix && spec ? strrchr(spec, '@') : NULL;
  ref->suffix = at ? at + 1 : NULL;
  ref->suffix_version = 0;
  ref->base_len = at ? (size_t)(at - spec) : spec ? strlen(spec) : 0;
  return ref->problem = check_ref(ref);
}

wgk_status hub_ref_error(const hub_ref *ref, const char *spec, util_error *err) {
  const wgk_status bad = WGK_ERR_INVALID_ARGUMENT;
  const char *suf = ref->suffix ? ref->suffix : "";
  switch (ref->problem) { /* no default: the compiler flags a problem without its message */
  case HUB_REF_OK:
    return WGK_OK;
  case HUB_REF_VERSION_OPTION:
    return util_error_in(err, bad, spec, NULL,
                         "kernel option version: must be 0 (any) or a branch number from 1 to 1000000, not %d",
                         ref->version);
  case HUB_REF_REVISION_OPTION:
    return util_error_in(err, bad, spec, NULL, "kernel option revision: must be a 40-hex commit, not '%.64s'",
                         ref->revision);
  case HUB_REF_SUFFIX_VERSION:
    return util_error_in(err, bad, spec, NULL, "'@%.64s': a version is v1 .. v1000000 (e.g. org/name@v1)", suf);
  case HUB_REF_VERSION_AND_REVISION:
    return util_error_in(err, bad, spec, NULL,
                         "names version %ld, and a revision is given too (the revision parameter or --revision): "
                         "give one",
                         ref->suffix_version);
  case HUB_REF_VERSIONS_DIFFER:
    return util_error_in(err, bad, spec, NULL,
                         "names version %ld, but the version parameter (or --version) says %d: give one",
                         ref->suffix_version, ref->version);
  case HUB_REF_SUFFIX:
    return util_error_in(err, bad, spec, NULL, "'@%.64s': after '@' give a version (vN, e.g. @v1) or a 40-hex commit",
                         suf);
  case HUB_REF_COMMIT_AND_VERSION:
    return util_error_in(err, bad, spec, NULL,
                         "names a commit, and version %d is given too (the version parameter or --version): give one",
                         ref->version);
  case HUB_REF_COMMITS_DIFFER:
    return util_error_in(err, bad, spec, NULL,
                         "names commit %s, but the revision parameter (or --revision) says %.64s: give one", suf,
                         ref->revision);
  }
  return bad;
}

char *hub_repo_of(const char *name, size_t len) {
  bool has_org = memchr(name, '/', len) != NULL;
  size_t n = len + (has_org ? 0 : sizeof WGK_HUB_TRUSTED_ORG) + 1;
  char *r = malloc(n);
  if (r) snprintf(r, n, "%s%s%.*s", has_org ? "" : WGK_HUB_TRUSTED_ORG, has_org ? "" : "/", (int)len, name);
  return r;
}
