// Utility metrics between two heatmaps of the same grid (Liu et al. 2019, Figure 3): mean squared error
// and Pearson's correlation coefficient (CC) over all cells.
#pragma once

#include <cstddef>

namespace gazepriv::core {

double heatmap_mse(const double* a, const double* b, std::size_t cells);
// NaN when either map is constant (the correlation is undefined).
double heatmap_cc(const double* a, const double* b, std::size_t cells);

} // namespace gazepriv::core

#include "core/common/no_postgres.hpp"
