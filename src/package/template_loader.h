#ifndef WGK_PACKAGE_TEMPLATE_LOADER_H
#define WGK_PACKAGE_TEMPLATE_LOADER_H

#include "package/package.h"
#include "template/template.h"

/* A template loader reading package files (digest-checked, cached); pkg must outlive its use. */
tmpl_loader pkg_template_loader(pkg_package *pkg);

#endif
