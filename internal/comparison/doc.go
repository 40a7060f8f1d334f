// Package comparison is the model of `ptsrun compare`: several runs lined
// up against the first, the reference, as tables, headline cells and a
// heat-map of ratios (Comparison). golden makes one of runs' results and
// pdfreport draws the one it is given, so that neither needs the other:
// the model is data and the ratios it is scored by, and draws nothing.
package comparison
