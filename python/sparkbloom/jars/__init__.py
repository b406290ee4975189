# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""The sparkbloom JVM extension jar, bundled here by dev/setup."""
