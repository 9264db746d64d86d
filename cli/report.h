/* Human and JSON renderings of the model's answers, shared by the commands. */
#ifndef OCCCALC_REPORT_H
#define OCCCALC_REPORT_H

#include <stdio.h>

#include "doc.h"
#include "occ/occ.h"

#define OCC_JSON_SCHEMA "occ/1"

/* "Intel Iris Xe ... [tgl, built-in]" and the capacity line. */
void report_device_text(FILE *f, const occ_device *dev, uint32_t grf);
/* "work-group 320 (1-D), sub-group 8, SLM 0, no barrier, GRF 128" */
void report_kernel_line(FILE *f, const occ_device *dev, const occ_kernel *k, const occ_residency *r);
/* Per-core residency block, limits with the binding ones marked. */
void report_core_text(FILE *f, const occ_device *dev, const occ_kernel *k, const occ_residency *r);
/* cooperative_max: occ_cooperative_max of the kernel (the GPU's other line of "at once") */
void report_gpu_text(FILE *f, const occ_device *dev, const occ_residency *r, const occ_gpu *g,
                     uint64_t cooperative_max);
void report_next_steps_text(FILE *f, const occ_device *dev, const occ_kernel *k);
/* A cluster launch: its clusters resident at once, where, and why not more. */
void report_clusters_text(FILE *f, const occ_device *dev, const occ_kernel *k, const occ_residency *r,
                          const occ_clusters *cl);

/* JSON members (inside an open object). */
void report_device_doc(doc *j, const occ_device *dev);
void report_kernel_doc(doc *j, const occ_kernel *k, const occ_residency *r);
void report_core_doc(doc *j, const occ_device *dev, const occ_kernel *k, const occ_residency *r);
void report_gpu_doc(doc *j, const occ_gpu *g, uint64_t cooperative_max);
void report_next_steps_doc(doc *j, const occ_device *dev, const occ_kernel *k);
void report_clusters_doc(doc *j, const occ_device *dev, const occ_kernel *k, const occ_clusters *cl);

/* Why the kernel cannot launch, in words (occ_residency_reason); a static
 * buffer: occcalc is single-threaded. */
const char *report_reason(const occ_device *dev, const occ_kernel *k);
/* The profile's vendor word ("intel", "nvidia"), asked of the library. */
const char *vendor_word(const occ_device_desc *d);

/* A name from a file (profile product, kernel name, path) fit for a
 * terminal: control characters (newline, ESC, DEL...) as \n, \t or \xNN,
 * a backslash doubled, other bytes as they are.  Returns one of a few static
 * buffers used in turn (several in one printf are fine; occcalc is
 * single-threaded); past 4 KB the text ends in "...". */
const char *text_safe(const char *s);
/* One byte as text_safe writes it, into esc; returns its length. */
size_t text_escape(unsigned char c, char esc[5]);

/* "s" unless n is 1: "%llu work-group%s", n, plural(n). */
static inline const char *plural(uint64_t n) { return n == 1 ? "" : "s"; }

/* "71.4 %" style percentage. */
double pct(double fraction);

#endif
