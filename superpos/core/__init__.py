"""The vocabulary: basis functions (``basis``), colored trees as prefix arrays (``tree``),
trees and sympy (``symbolic``), shared numeric bounds and errors (``numeric``), files
without pickle (``files``) and scikit-learn's parameter convention (``params``)."""
