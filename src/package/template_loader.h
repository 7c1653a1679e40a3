#ifndef WGK_PACKAGE_TEMPLATE_LOADER_H
#define WGK_PACKAGE_TEMPLATE_LOADER_H

#include "package/package.h"
#include "template/template.h"

/* A template loader reading package files (digest-checked, cached); pkg must outlive its use. */
wgk_tmpl_loader wgk_pkg_template_loader(wgk_pkg *pkg);

#endif
